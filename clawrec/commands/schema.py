"""`clawrec schema spec`: the JSON Schema of a task spec, generated from the spec model (taskspec/schema.py)."""

from __future__ import annotations

import json

import click


@click.group("schema")
def schema() -> None:
    """JSON Schemas of clawrec's file formats, generated from the code (docs/schema/ holds the committed copies)."""


@schema.command("spec")
def spec() -> None:
    """Print the task spec's JSON Schema (draft-07). The specs `clawrec annotate`, `import-clawbench` and
    `factory generate` write start with `# yaml-language-server: $schema=…` pointing at docs/schema/spec.schema.json,
    so an editor with the YAML language server validates and completes them as you type; for a spec of your own,
    put that line at its top. What only `clawrec validate` can check (files on disk, the id against the file name,
    regex syntax, a rule matching the start page) stays with it."""
    from taskspec.schema import spec_schema

    click.echo(json.dumps(spec_schema(), indent=2, ensure_ascii=False))
