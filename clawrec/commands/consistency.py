"""`clawrec consistency RUN... [--reference REF] [--json]` and `clawrec consistency-agreement LABELS.csv DIR`:
execution consistency of runs of one task (evaluator/consistency.py) and its agreement with a person's labels
(evaluator/consistency_agreement.py)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from clawrec.errors import UsageError
from evaluator.errors import EvaluatorError, RunDirError


def _render(result: dict) -> str:
    lines = []
    if result["reference"]:
        lines.append(f"against the reference {result['reference']}:")
        for p in result["vs_reference"]:
            run = p["b"] if p["a"] == result["reference"] else p["a"]
            lines.append(f"  {p['score']:.3f}  {run}  (path {p['path']:.3f}, outcome {p['outcome']:.3f})")
            for d in (p["divergences"] + p["payload_differences"])[:3]:
                lines.append(f"         - {d}")
    if result["pairs"]:
        lines.append("pairs:")
        for p in result["pairs"]:
            lines.append(f"  {p['score']:.3f}  {p['a']}  ~  {p['b']}")
            for d in (p["divergences"] + p["payload_differences"])[:3]:
                lines.append(f"         - {d}")
        lines.append(f"mean pairwise consistency: {result['mean_pairwise']:.3f} ({len(result['runs'])} runs)")
    if result["mean_vs_reference"] is not None:
        lines.append(f"mean consistency with the reference: {result['mean_vs_reference']:.3f}")
    lines.append(f"(consistent when >= {result['threshold']}; {result['method']})")
    return "\n".join(lines)


@click.command("consistency")
@click.argument("runs", metavar="RUN...", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--reference", type=click.Path(path_type=Path), help="Also score each run against this run (a "
              "person's reference).")
@click.option("--json", "as_json", is_flag=True, help="Print the scores as JSON.")
def consistency(runs: tuple[Path, ...], reference: Path | None, as_json: bool) -> int:
    """How consistently RUN... (runs of one task) executed it, 0–1 per pair: their essential steps aligned on type,
    role + accessible name and value kind (the task's values by placeholder), insensitive to extra scrolls, a click
    before typing, a retried click, the order fields of one form were filled and timing; each divergent step
    multiplies the score by 2/3; times the share of terminal payload fields that agree. Prints each run against
    --reference and the mean pairwise score among the runs."""
    from evaluator.consistency import report

    if len(runs) < 2 and reference is None:
        raise UsageError("give two or more runs, or --reference REF")
    for p in (*runs, *([reference] if reference else [])):
        if not p.is_dir():
            raise UsageError(f"{p}: not a run directory (no such directory)")
    try:
        result = report(list(runs), reference)
    except (EvaluatorError, RunDirError) as exc:
        raise UsageError(str(exc)) from None
    click.echo(json.dumps(result, indent=2, ensure_ascii=False) if as_json else _render(result))
    return 0


@click.command("consistency-agreement")
@click.argument("labels", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("root", metavar="DIR", type=click.Path(file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
def consistency_agreement(labels: Path, root: Path, as_json: bool) -> int:
    """How well the consistency score separates pairs a person labelled: LABELS.csv has the columns `run_a`,
    `run_b` (run directories relative to DIR) and `label` (consistent | inconsistent). Prints each pair's score,
    the mean score of each class, and accuracy, F1, precision and recall at the best threshold and at the default
    one (0.8)."""
    from evaluator.consistency_agreement import agreement, render_text

    if not labels.is_file():
        raise UsageError(f"{labels}: no such file")
    if not root.is_dir():
        raise UsageError(f"{root}: no such folder")
    try:
        result = agreement(labels, root)
    except (EvaluatorError, RunDirError) as exc:
        raise UsageError(str(exc)) from None
    click.echo(json.dumps(result, indent=2) if as_json else render_text(result))
    return 0
