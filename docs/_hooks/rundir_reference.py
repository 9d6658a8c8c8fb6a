"""MkDocs hook: the run directory reference, generated at build time from rundir/ (the file names in
rundir/records.py, the record types of rundir/layers.py with their fields, types, defaults and comments, the
manifest's statuses in rundir/manifest.py), so the page says what the code writes and reads.
A page holds `<!-- clawrec:rundir-reference -->`."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re

MARKER = "<!-- clawrec:rundir-reference -->"


def _esc(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;")


def _file_table() -> list[str]:
    """Every file-name constant of rundir/records.py, with the comment beside it."""
    import rundir.records as records

    source = inspect.getsource(records)
    lines = source.splitlines()
    rows = ["| file | constant | what it holds |", "|---|---|---|"]
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            name = node.targets[0].id  # type: ignore[attr-defined]
            comment = lines[node.lineno - 1].partition("#")[2].strip()
            rows.append(f"| `{node.value.value}` | `{name}` | {_esc(comment) or '–'} |")
    return rows


def _record_section(cls: type) -> list[str]:
    """One record class: its docstring and a table of its stored keys."""
    comments = {}
    for line in inspect.getsource(cls).splitlines():
        m = re.match(r"\s+(\w+): [^=]+?(?:= .+?)?\s+#\s*(.*)$", line)
        if m:
            comments[m.group(1)] = m.group(2)
    doc = " ".join((cls.__doc__ or "").split())
    out = [f"### `{cls.__name__}`", "", _esc(doc), "", "| key | type | default | note |", "|---|---|---|---|"]
    stored = {v: k for k, v in getattr(cls, "RENAMED", {}).items()}
    hints = {f.name: f.type for f in dataclasses.fields(cls)}
    for f in dataclasses.fields(cls):
        if f.name in ("line", "raw") and f.name not in stored:
            continue
        default = f.default if f.default is not dataclasses.MISSING else (
            f.default_factory() if f.default_factory is not dataclasses.MISSING else None)
        key = stored.get(f.name, f.name)
        out.append(f"| `{key}` | `{_esc(str(hints[f.name]))}` | `{default!r}` | {_esc(comments.get(f.name, ''))} |")
    if getattr(cls, "OPEN", False):
        out += ["", "Open record: keys a writer outside clawrec adds are kept as they came."]
    return out + [""]


def rundir_reference_markdown() -> str:
    from rundir import layers, manifest

    out = ["## Files", "", *_file_table(), "",
           "## The manifest", "", f"`manifest.json` format version {manifest.FORMAT_VERSION}; a finished run's "
           f"`status` is one of {', '.join(f'`{s}`' for s in manifest.FINAL_STATUSES)} (`running` while it runs).",
           "", _esc(inspect.cleandoc(manifest.__doc__ or "")).replace(":\n- ", ":\n\n- ", 1), "",
           "## Record shapes", "",
           "Each JSONL line is one record; `t` is seconds since the run's t0 on its one clock. "
           "A reader keeps a line whose value has the wrong type, with that key at its default.", ""]
    classes = [c for c in vars(layers).values()
               if inspect.isclass(c) and issubclass(c, layers.Record) and c is not layers.Record]
    for cls in classes:
        out += _record_section(cls)
    return "\n".join(out)


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001 (the MkDocs hook signature)
    if MARKER in markdown:
        markdown = markdown.replace(MARKER, rundir_reference_markdown())
    return markdown
