"""The one YAML writer of specs (annotate, the ClawBench import): keys in spec order, multi-line strings as `|`
blocks, strings with `{` or `: ` quoted (placeholders and URLs stay readable and round-trip), a `# ` header under
the schema modeline (an editor with the YAML language server then validates and completes the spec as it is typed;
the factory writes its specs' text itself and starts them with the same line)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else '"' if "{" in value or ":" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)

SCHEMA_FILE = Path(__file__).resolve().parents[1] / "docs" / "schema" / "spec.schema.json"  # `clawrec schema spec`


def schema_modeline(spec_path: Path | None = None) -> str:
    """The first line of a written spec: `# yaml-language-server: $schema=…/spec.schema.json`, relative to the spec's
    folder when it is known (a committed spec then points at the schema in any checkout), else a file:// URI."""
    if spec_path is None:
        return f"# yaml-language-server: $schema={SCHEMA_FILE.as_uri()}\n"
    rel = os.path.relpath(SCHEMA_FILE, Path(spec_path).resolve().parent)
    return f"# yaml-language-server: $schema={Path(rel).as_posix()}\n"


def dump_spec(spec: dict[str, Any], header: str = "", path: Path | None = None) -> str:
    """The spec as YAML text, each line of `header` as a comment above it; `path`: where it will be written."""
    body = yaml.dump(spec, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110, default_flow_style=False)
    return schema_modeline(path) + "".join(f"# {line}\n" for line in header.splitlines()) + body
