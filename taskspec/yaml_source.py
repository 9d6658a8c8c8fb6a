"""Read YAML (or JSON) text into data plus a map of field paths to line numbers, for FILE:LINE messages.

PyYAML composes the node tree (every node knows its `start_mark.line`); we walk it once to record where each
key and list item is, and to catch duplicate keys (which PyYAML silently merges), then construct the data
from the same tree. Every reading failure becomes a `Problem`, never a traceback.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from taskspec.limits import MAX_DEPTH, MAX_SPEC_BYTES, MAX_SPEC_EXPANDED

FieldPath = tuple[Any, ...]  # keys (str) and list indices (int)


@dataclass(frozen=True)
class Problem:
    """One problem in one file: printed as `FILE:LINE: field: message` (no `:LINE` when unknown)."""

    file: str
    line: int | None
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.field}: {self.message}"


class SpecError(ValueError):
    """Raised by the spec loaders; `.problems` lists every problem found (not just the first)."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


def dotted(path: FieldPath) -> str:
    """`("intercept", 0, "url")` → `intercept.0.url`; the whole document is called `spec`."""
    return ".".join(str(p) for p in path) or "spec"


@dataclass
class LineMap:
    """Field path → 1-based line; unknown paths fall back to their closest known parent."""

    lines: dict[FieldPath, int] = field(default_factory=dict)

    def line(self, path: FieldPath) -> int:
        for end in range(len(path), -1, -1):
            found = self.lines.get(tuple(path[:end]))
            if found:
                return found
        return 1


@dataclass
class Source:
    data: Any
    lines: LineMap
    problems: list[Problem]  # duplicate keys: the data is usable, but the file is wrong


class _Loader(yaml.SafeLoader):
    """SafeLoader whose value errors (e.g. a date like 2024-13-45) carry the node's position."""

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except yaml.YAMLError:
            raise
        except (ValueError, TypeError, OverflowError) as exc:
            raise yaml.constructor.ConstructorError(None, None, f"cannot read value: {exc}", node.start_mark)


def _walk(node: Node, path: FieldPath, out: Source, file: str, seen: set[int], above: frozenset[int]) -> None:
    if id(node) in above:  # data that contains itself cannot be turned into JSON later: refuse it here
        out.problems.append(Problem(file, node.start_mark.line + 1, dotted(path), "an alias may not contain itself"))
        return
    if id(node) in seen:  # an alias: its lines are those of the anchor (and a billion laughs stays cheap)
        return
    seen.add(id(node))
    above = above | {id(node)}
    if isinstance(node, MappingNode):
        first: dict[str, int] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key, line = key_node.value, key_node.start_mark.line + 1
            if key in first:
                out.problems.append(Problem(file, line, dotted(path + (key,)),
                                            f"duplicate key (first defined at line {first[key]})"))
                continue
            first[key] = line
            out.lines.lines.setdefault(path + (key,), line)
            _walk(value_node, path + (key,), out, file, seen, above)
    elif isinstance(node, SequenceNode):
        for i, item in enumerate(node.value):
            out.lines.lines.setdefault(path + (i,), item.start_mark.line + 1)
            _walk(item, path + (i,), out, file, seen, above)


def _expanded_problem(root: Node, file: str) -> Problem | None:
    """Aliases make a small file stand for huge data (a "billion laughs": 9 levels of 10 aliases = 10^9 items) that
    every later `json.dumps` or walk would expand. Expanded size and height are summed bottom-up with each node
    visited once (iterative, memoized), so the check is linear in the file."""
    size: dict[int, tuple[int, int]] = {}  # id(node) -> (expanded size, height)
    stack: list[tuple[Node, bool]] = [(root, False)]
    entered: set[int] = set()  # a node inside itself (a cycle) is refused later by _walk
    while stack:
        node, done = stack.pop()
        if id(node) in size or (not done and id(node) in entered):
            continue
        children = [v for _k, v in node.value] if isinstance(node, MappingNode) else \
            list(node.value) if isinstance(node, SequenceNode) else []
        if not done:
            entered.add(id(node))
            stack.append((node, True))
            stack.extend((child, False) for child in children if id(child) not in size)
            continue
        if isinstance(node, ScalarNode):
            size[id(node)] = (1 + len(node.value), 0)
            continue
        below = [size.get(id(c), (0, 0)) for c in children]
        total, height = 1 + sum(s for s, _h in below), 1 + max((h for _s, h in below), default=0)
        size[id(node)] = (total, height)
        line = node.start_mark.line + 1
        if height > MAX_DEPTH:
            return Problem(file, line, "yaml", f"nested deeper than {MAX_DEPTH} levels (docs/reference/limits.md)")
        if total > MAX_SPEC_EXPANDED:
            return Problem(file, line, "yaml", f"aliases expand this value to more than {MAX_SPEC_EXPANDED:,} "
                                               f"items and characters (a 'billion laughs'?); docs/reference/limits.md")
    return None


def _decode(raw: bytes, file: str) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SpecError([Problem(file, line, "yaml", f"not UTF-8 text (byte 0x{raw[exc.start]:02x})")]) from None


def _syntax_problem(exc: yaml.YAMLError, text: str, file: str) -> Problem:
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        message = "; ".join(str(m) for m in (exc.context, exc.problem) if m) or "invalid YAML"
        return Problem(file, mark.line + 1 if mark else 1, "yaml", message)
    if isinstance(exc, yaml.reader.ReaderError):
        line = text[: exc.position].count("\n") + 1
        char = exc.character if isinstance(exc.character, int) else ord(exc.character)
        return Problem(file, line, "yaml", f"control character 0x{char:02x} is not allowed")
    return Problem(file, 1, "yaml", str(exc).splitlines()[0] if str(exc) else "invalid YAML")


def read_spec_bytes(path: Path) -> bytes:
    """A spec file's bytes, reading at most MAX_SPEC_BYTES + 1: a huge file (or /dev/zero) is never read whole."""
    with open(path, "rb") as fh:
        raw = fh.read(MAX_SPEC_BYTES + 1)
        if len(raw) > MAX_SPEC_BYTES:
            size = os.fstat(fh.fileno()).st_size
            raise SpecError([_too_big(str(path), size if size > MAX_SPEC_BYTES else None)])
    return raw


def _too_big(file: str, size: int | None) -> Problem:
    what = f"file is {size:,} bytes, larger" if size is not None else "file is larger"
    return Problem(file, 1, "spec", f"{what} than the limit of {MAX_SPEC_BYTES:,} (docs/reference/limits.md)")


def read_yaml(raw: bytes, file: str) -> Source:
    """Parse one YAML document (JSON is YAML too). Raises SpecError for text that cannot be read at all, and for a
    file or alias expansion over the limits (taskspec/limits.py)."""
    if len(raw) > MAX_SPEC_BYTES:
        raise SpecError([_too_big(file, len(raw))])
    text = _decode(raw, file)
    out = Source(None, LineMap(), [])
    loader = None
    try:
        loader = _Loader(text)  # the reader already rejects control characters here
        node = loader.get_single_node()
        if node is None:
            raise SpecError([Problem(file, 1, "spec", "empty file: expected a mapping that starts with 'version: 1'")])
        out.lines.lines[()] = node.start_mark.line + 1
        too_big = _expanded_problem(node, file)
        if too_big is not None:
            raise SpecError([too_big])
        _walk(node, (), out, file, set(), frozenset())
        out.data = loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise SpecError([_syntax_problem(exc, text, file)]) from None
    except RecursionError:
        raise SpecError([Problem(file, 1, "yaml", "nested too deeply")]) from None
    finally:
        if loader is not None:
            loader.dispose()
    return out
