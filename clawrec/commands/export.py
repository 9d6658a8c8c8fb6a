"""`clawrec export inspect BENCH_DIR [--out FILE.eval]`: runs in other tools' formats (clawrec/inspect/export.py)."""

from __future__ import annotations

from pathlib import Path

import click

from clawrec.errors import UsageError, check_creatable


@click.group("export")
def export() -> None:
    """Write clawrec runs in other tools' formats."""


@export.command("inspect")
@click.argument("bench_dir", metavar="BENCH_DIR", type=click.Path(path_type=Path, file_okay=False))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="The log file to write (.eval, or .json for Inspect's JSON log); default BENCH_DIR/inspect.eval.")
def inspect_log(bench_dir: Path, out: Path | None) -> int:
    """A `clawrec bench` folder as an Inspect AI log: one sample per run (messages from agent.jsonl, the score from
    verdict.json, tokens and cost from the manifest, the run directory in the sample's store and metadata), read by
    Inspect's read_eval_log and opened by `inspect view`. Needs the `inspect` extra: pip install 'clawrec[inspect]'."""
    from clawrec.bench.plan import PLAN_FILE

    if not (bench_dir / PLAN_FILE).is_file():  # before Inspect is imported (seconds): bad input answers at once
        raise UsageError(f"{bench_dir}: no {PLAN_FILE} (not a clawrec bench folder)")
    try:
        from clawrec.inspect.export import export_bench
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] == "inspect_ai":
            raise UsageError("clawrec export inspect needs Inspect AI: pip install 'clawrec[inspect]'") from None
        raise
    if out is not None:
        check_creatable(out, f"--out {out}")
    path = export_bench(bench_dir, out)
    click.echo(str(path))
    return 0
