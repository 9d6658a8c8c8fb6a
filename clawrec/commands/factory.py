"""`clawrec factory generate|serve|eval`: the web factory (factory/README.md)."""

from __future__ import annotations

import json
import signal
import threading
from pathlib import Path

import click

from clawrec.errors import UsageError, check_creatable


def _names(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


@click.group("factory")
def factory() -> None:
    """Generated sites with ground truth: generate them, serve them, measure clawrec on them."""


@factory.command("generate")
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@click.option("--seed", type=int, required=True, help="Seed: the same seed (and generator) gives a byte-identical OUT.")
@click.option("--count", type=int, required=True, help="Number of sites.")
@click.option("--families", default=None, metavar="F,…", help="Only these families (default: all, in turn).")
@click.option("--channels", default=None, metavar="C,…", help="Only these terminal channels (default: all, in turn).")
def generate(out: Path, seed: int, count: int, families: str | None, channels: str | None) -> None:
    """Write N sites to OUT: OUT/sites/<id>/ (files), OUT/specs/<id>.yaml, OUT/solvers/<id>.json, OUT/index.json
    (family, channel, variation axes, oracle, subgoals, distractors of each)."""
    from factory.generate import GenerateError, generate as run

    try:
        entries = run(out, seed, count, _names(families), _names(channels))
    except GenerateError as exc:
        raise UsageError(str(exc)) from None
    click.echo(f"clawrec: generated {len(entries)} sites in {out}")


@factory.command("serve")
@click.argument("out", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("--log", "log_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Append every received request and every subgoal/distractor/terminal event as JSONL here.")
def serve(out: Path, log_path: Path | None) -> None:
    """Serve OUT's sites (each origin on its own 127.0.0.1 port); print the base URLs as ONE JSON line (like
    `clawrec sites serve`); stop on SIGINT/SIGTERM."""
    from factory.serve import FactoryError, serve_factory

    if log_path is not None:
        check_creatable(log_path, f"--log {log_path}")
    stop = threading.Event()
    previous = {s: signal.signal(s, lambda *_: stop.set()) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        with serve_factory(out, log_path) as server:
            click.echo(json.dumps(server.urls))
            click.get_text_stream("stdout").flush()
            click.echo(f"clawrec: serving {len(server.urls)} origins; request log: {server.log_path}; stop with "
                       "Ctrl-C", err=True)
            while not stop.wait(0.5):
                pass
    except FactoryError as exc:
        raise UsageError(str(exc)) from None
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@factory.command("eval")
@click.argument("out", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("-j", "--jobs", type=click.IntRange(1, 64), default=2, show_default=True,
              help="Sites evaluated at a time (each site's runs are sequential).")
@click.option("--ids", default=None, metavar="ID,…", help="Only these sites.")
def eval_(out: Path, jobs: int, ids: str | None) -> None:
    """Measure clawrec on OUT's sites through the ordinary run pipeline (solver, perturbed solver, null, random,
    annotate on the solver's run); write OUT/eval.json and OUT/eval.md: recall, false positives, leaks, judge
    accuracy, annotate success, mean dense progress; overall, per family, per channel; failing sites with their
    run directories. Exit 1 when any site fails."""
    from factory.eval import evaluate
    from factory.serve import FactoryError

    try:
        summary = evaluate(out, jobs, _names(ids), progress_line=lambda line: click.echo(line, err=True))
    except FactoryError as exc:
        raise UsageError(str(exc)) from None
    m = summary["overall"]
    click.echo(f"clawrec: {m['sites']} sites, {summary['runs']} runs ({summary['runs_per_hour']} runs/hour): recall "
               f"{m['recall']:.1%}, false positives {m['false_positives']}, leaks {m['leaks']}, judge accuracy "
               f"{m['judge_accuracy']:.1%}, annotate {m['annotate_success']:.1%}; {out / 'eval.md'}")
    if summary["failing"]:
        raise SystemExit(1)
