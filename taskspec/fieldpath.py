"""Payload field paths: ONE meaning for the matcher, the judges, annotate, check-spec and diagnose.

A path is dotted (`passengers.0.email`). It is looked up in a decoded body the same way everywhere:
- JSON objects and lists (`0` indexes a list); `*` stands for every element of a list (or value of an object) and
  the lookup then gives the list of what was found under each (present when any was found);
- urlencoded forms and multipart keep their keys flat: a key `a.b.0` or its bracket form `a[b][0]` (Rails, PHP,
  Django formsets) is the path `a.b.0`;
- a string that holds JSON (Salesforce Aura's `message=…`, GraphQL `variables` sent as a form field) is descended into;
- a list where a name is expected (a batched GraphQL body) is searched element by element (the first that has it);
- a GraphQL operation (`{query, operationName, variables}`): a path not found at its top level is looked up in its
  `variables` (`operationName` stays top level).
Everything is iterative (no recursion), so a hostile 200k-deep body cannot raise RecursionError here.
"""

from __future__ import annotations

import re
from typing import Any

from taskspec.limits import loads_bounded

MISSING: Any = object()
_BRACKETS = re.compile(r"\[([^\[\]]*)\]")


def bracketed(path: str) -> str:
    """`a.b.0` → `a[b][0]`: the form-key spelling of a dotted path."""
    head, *rest = path.split(".")
    return head + "".join(f"[{p}]" for p in rest)


def dotted(key: str) -> str:
    """`a[b][0]` → `a.b.0` (a form key in bracket notation as a dotted path); other keys unchanged, and so is a
    key with an empty bracket (PHP's multi-value `_email[]`, Roundcube's contact form): `_email.` would be a path
    with an empty segment, which no spec may hold; `_email[]` is one segment, looked up as it is."""
    i = key.find("[")
    if i <= 0 or not key.endswith("]") or _BRACKETS.sub("", key[i:]):
        return key
    parts = _BRACKETS.findall(key[i:])
    return key if "" in parts else key[:i] + "".join("." + p for p in parts)


def decoded(value: Any) -> Any:
    """A string holding a JSON object or list, decoded; anything else as it is."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return loads_bounded(value)
        except ValueError:  # not JSON, or deeper than taskspec/limits.py allows
            return value
    return value


def _index(segment: str) -> int | None:
    """A list index segment (`0`, `12`); None for anything else (`²` and 5000-digit strings are not indices)."""
    return int(segment) if segment.isascii() and segment.isdigit() and len(segment) < 18 else None


def is_graphql(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("query"), str) and "operationName" in value


def lookup(value: Any, path: str) -> Any:
    """The value at a dotted path, or MISSING. With `*` segments: the list of values found (MISSING when none)."""
    star = "*" in path.split(".")
    found: list[Any] = []
    # (node, remaining path) pairs still to explore; depth-first, first hit wins unless a `*` fans out
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        node, rest = stack.pop()
        node = decoded(node)
        if rest == "":
            if not star:
                return node
            found.append(node)
            continue
        head, _, tail = rest.partition(".")
        nxt: list[tuple[Any, str]] = []
        if isinstance(node, dict):
            if head != "*" and rest in node:
                nxt.append((node[rest], ""))
            elif head != "*" and (alt := bracketed(rest)) in node:
                nxt.append((node[alt], ""))
            elif head == "*":
                nxt += [(v, tail) for v in node.values()]
            elif head in node:
                nxt.append((node[head], tail))
            elif is_graphql(node) and head != "operationName" and "variables" in node:
                nxt.append((node["variables"], rest))
        elif isinstance(node, list):
            if head == "*":
                nxt += [(v, tail) for v in node]
            elif _index(head) is not None:
                if _index(head) < len(node):
                    nxt.append((node[_index(head)], tail))
            elif not head.isdigit():
                nxt += [(v, rest) for v in node]  # a list where a name is expected: any element
        stack += reversed(nxt)
    return found if star and found else MISSING


def has(value: Any, path: str) -> bool:
    return lookup(value, path) is not MISSING


def values_equal(actual: Any, expected: Any) -> bool:
    """Loose constant comparison (forms carry strings): 5 == "5", true == "true"; a list (a repeated form key, a
    `*` lookup) equals a scalar when any of its values does."""
    if actual is MISSING:
        return False
    if isinstance(actual, list) and not isinstance(expected, list):
        return any(values_equal(a, expected) for a in actual)
    if actual == expected and type(actual) is type(expected):
        return True
    if isinstance(expected, bool) or isinstance(actual, bool):
        return str(actual).lower() == str(expected).lower()
    if isinstance(expected, (int, float)) and not isinstance(actual, (dict, list)):
        try:
            return float(actual) == float(expected)
        except (TypeError, ValueError, OverflowError):
            return False
    if isinstance(expected, (dict, list)) or isinstance(actual, (dict, list)):
        return actual == expected
    return str(actual) == str(expected)


def is_nonempty(actual: Any) -> bool:
    """A rule's `nonempty` test: present and not empty. Empty is MISSING, null, "" and an empty list or mapping; a
    string of spaces, 0 and false are values (the safe side: a rule catches more, never less). A list (a repeated
    form key, a `*` lookup) is non-empty when any of its values is."""
    if actual is MISSING or actual is None or actual == "":
        return False
    if isinstance(actual, list):
        return any(is_nonempty(a) for a in actual)
    return not (isinstance(actual, dict) and not actual)


def starts_with(actual: Any, prefix: str) -> bool:
    """A string value that starts with `prefix` (case counts: Salesforce key prefixes do); a list (a `*` lookup)
    when any of its values does."""
    if isinstance(actual, list):
        return any(starts_with(a, prefix) for a in actual)
    return isinstance(actual, str) and actual.startswith(prefix)


def is_file_part(value: Any) -> bool:
    """A multipart file part as the decoder records it: one leaf (its field name), never descended into."""
    return isinstance(value, dict) and "filename" in value and (
        "sha256" in value or "bytes_unavailable" in value or "size" in value)


def leaves(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """(dotted path, value) of every scalar, in payload order; bracket form keys are given as dotted paths; a
    multipart file part is one leaf; an empty object/list is a leaf."""
    out: list[tuple[str, Any]] = []
    stack: list[tuple[str, Any, bool]] = [(prefix, value, False)]  # (path, node, is a leaf)
    while stack:
        path, node, leaf = stack.pop()
        if leaf:
            out.append((path, node))
            continue
        if isinstance(node, dict) and not is_file_part(node):
            items = [(dotted(str(k)), v) for k, v in node.items()]
        elif isinstance(node, list):
            items = [(str(i), v) for i, v in enumerate(node)]
        else:
            if path:
                out.append((path.rstrip("."), node))
            continue
        for k, v in reversed(items):
            inner = isinstance(v, (dict, list)) and bool(v) and not is_file_part(v)
            stack.append((f"{path}{k}." if inner else f"{path}{k}", v, not inner))
    return out


def leaf_paths(value: Any) -> list[str]:
    return [p for p, _ in leaves(value)]
