"""`clawrec validate PATH...`: check task specs; every problem is one line `FILE:LINE: field: message`."""

from __future__ import annotations

from pathlib import Path

import click

from taskspec.load import SpecError, load_specs


@click.command("validate")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--list", "-l", "show", is_flag=True,
              help="Also print one line per spec: id, category, start URL, number of intercept rules (and of writes).")
@click.option("--allow-outside-files", is_flag=True,
              help="Accept `files:` that resolve outside the spec's folder (refused by default: they are handed "
                   "to the agent).")
@click.pass_context
def validate(ctx: click.Context, paths: tuple[Path, ...], show: bool, allow_outside_files: bool) -> None:
    """Check the task specs in PATHS (files, or folders searched recursively for *.yaml).

    Prints every problem as `FILE:LINE: field: message` on stderr and exits 2; when all specs are valid,
    prints one summary line on stdout and exits 0."""
    try:
        specs = load_specs(list(paths), allow_outside_files=allow_outside_files)
    except SpecError as exc:
        for problem in exc.problems:
            click.echo(str(problem), err=True)
        ctx.exit(2)
    if show:
        for spec in specs:
            rules = len(spec.intercept)
            writes = f", {len(spec.writes)} write{'s' * (len(spec.writes) != 1)}" if spec.writes else ""
            click.echo(f"{spec.id}\t{spec.category}\t{spec.start_url}\t{rules} intercept rule{'s' * (rules != 1)}"
                       f"{writes}")
    noun = "spec" if len(specs) == 1 else "specs"
    click.echo(f"clawrec: {len(specs)} {noun} OK ({', '.join(str(p) for p in paths)})")
