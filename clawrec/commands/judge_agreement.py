"""`clawrec judge-agreement LABELS.csv DIR`: how well each judge agrees with human labels, and the judges with
each other (agreement, Cohen's κ, precision/recall of PASS). The statistics live in clawrec/bench/agreement.py."""

from __future__ import annotations

import json
from pathlib import Path

import click

from clawrec.errors import UsageError


@click.command("judge-agreement")
@click.argument("labels", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("root", type=click.Path(file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
def judge_agreement(labels: Path, root: Path, as_json: bool) -> int:
    """Compare the verdicts of the runs under ROOT (a bench folder or any folder of runs) with LABELS.csv
    (columns `run`, a run directory relative to ROOT, and `label`, PASS or FAIL)."""
    from clawrec.bench.agreement import agreement, render_text

    if not labels.is_file():
        raise UsageError(f"{labels}: no such file")
    if not root.is_dir():
        raise UsageError(f"{root}: no such folder")
    result = agreement(labels, root)
    click.echo(json.dumps(result, indent=2) if as_json else render_text(result))
    return 0
