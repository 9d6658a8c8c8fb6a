"""`clawrec diagnose RUN [--reference REF]`: why the run failed (category + the step that caused it) and where it
left the reference's path; writes RUN/diagnosis.json."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from clawrec.errors import UsageError
from clawrec.unfinished import finalize_if_dead
from evaluator.diagnose import DIAGNOSIS, Diagnosis, diagnose as run_diagnosis
from evaluator.errors import EvaluatorError, RunDirError
from rundir.reader import RunDir
from taskspec.load import SpecError, load_spec
from taskspec.model import Spec

STYLE = {"same": "green", "value": "yellow", "differs": "red", "extra": "magenta", "missing": "magenta"}


def find_spec(run: RunDir, given: Path | None) -> tuple[Spec | None, str | None]:
    """The run's spec: --spec, else the manifest's spec path (relative to the run, or to the current folder)."""
    if given is not None:
        try:
            return load_spec(given, allow_outside_files=True), None
        except SpecError as exc:
            raise UsageError(str(exc.problems[0]) if exc.problems else str(exc)) from None
    p = run.spec_path
    if p is None:
        return None, "no spec in the manifest: payload compared with the reference only"
    if not p.is_file():
        return None, f"spec {p} not found: payload compared with the reference only"
    try:
        return load_spec(p, allow_outside_files=True), None
    except SpecError:
        return None, f"spec {p} does not validate: payload compared with the reference only"


def resolve_reference(run: RunDir, spec: Spec | None, given: Path | None) -> Path:
    ref = given or (spec.reference if spec is not None else None)
    if ref is None:
        raise UsageError(f"{run.path}: no reference run (the spec names none); pass --reference RUN")
    if not Path(ref).is_dir():
        raise UsageError(f"reference {ref}: not a run directory (no such directory)")
    return Path(ref)


def window(d: Diagnosis, before: int = 3, after: int = 6) -> range:
    """Rows shown by default: a few around the relevant divergence (all rows if the runs agree and are short)."""
    if d.first is None:
        return range(max(0, len(d.rows) - before - after), len(d.rows))
    return range(max(0, d.first - before), min(len(d.rows), d.first + after))


def render(console: Console, d: Diagnosis, show_all: bool) -> None:
    color = "green" if d.category is None else "bold red"
    console.print(f"[{color}]{escape(d.headline())}[/]")
    if d.self_report_gap:
        console.print(f"  [bold yellow]self-report gap[/]: the agent said {escape(repr(d.self_report_gap['claimed']))}"
                      f" (agent.jsonl line {d.self_report_gap['agent_line']}) but no terminal request was sent")
    c = d.counts
    console.print(f"[bold]diagnosis[/] {escape(d.run)}\n  reference {escape(d.reference)}")
    console.print(f"  steps: agent {c['agent']} (of {c['agent_actions']} actions), reference {c['reference']} "
                  f"(of {c['reference_actions']}); {c['same']} same, {c['value']} other value, {c['differs']} "
                  f"different, {c['extra']} extra, {c['missing']} missing; similarity {d.similarity:.2f}")
    div = d.divergence
    if div is None:
        console.print("[green]no divergence[/]: the agent took the reference's steps with the same values")
    else:
        console.print(f"[bold red]divergence that explains it[/]: {escape(div['summary'])}"
                      if div["relevant"] else f"[bold]first divergence[/]: {escape(div['summary'])}")
        for side in ("agent", "reference"):
            console.print(f"  {side:<9} url: {escape(str(div[side + '_url'] or '-'))}   screenshot: "
                          f"{escape(str(div[side + '_screenshot'] or '-'))}")
        others = [x for x in d.divergences[1:]]
        if others:
            console.print(f"  other divergences ({len(others)}, harmless to the verdict or follow-ups):")
            for x in others[:5]:
                console.print(f"    - {escape(x['summary'])}")
    p = d.payload
    console.print(f"[bold]payload[/]: {p['verdict']} (agent caught {p['agent_caught']}, reference caught "
                  f"{p['reference_caught']})")
    for diff in p["differences"]:
        console.print(f"  - {escape(diff['condition'])}: {escape(str(diff['detail']))}")
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for col in ("step", "status", "agent", "ref step", "reference"):
        table.add_column(col, overflow="fold")
    rows = range(len(d.rows)) if show_all else window(d)
    for i in rows:
        r = d.rows[i]
        mark = "▶ " if i == d.first else ""
        table.add_row(f"{mark}{r.agent_step if r.agent_step is not None else ''}",
                      f"[{STYLE[r.status]}]{r.status}[/]",
                      escape(r.agent.describe()) + (f" [dim]seq {r.agent.seq}[/]" if r.agent.seq is not None else "")
                      if r.agent else "", str(r.reference_step if r.reference_step is not None else ""),
                      escape(r.reference.describe()) if r.reference else "")
    console.print(table)
    if not show_all and len(rows) < len(d.rows):
        console.print(f"[dim]({len(rows)} of {len(d.rows)} aligned steps shown; --all shows every step)[/]")
    for note in d.notes:
        console.print(f"[dim]note: {escape(note)}[/]")


@click.command("diagnose")
@click.argument("run_dir", metavar="RUN", type=click.Path(path_type=Path))
@click.option("--reference", type=click.Path(path_type=Path),
              help="Reference run directory (default: the spec's `reference`).")
@click.option("--spec", "spec_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Task spec (default: the manifest's spec path); used by the payload comparison.")
@click.option("--all", "show_all", is_flag=True, help="Print every aligned step, not just those around the "
                                                      "divergence.")
def diagnose(run_dir: Path, reference: Path | None, spec_path: Path | None, show_all: bool) -> int:
    """Why did RUN fail, and where did it leave the reference's path? The first line is the failure category
    (never submitted, wrong value, missing field, wrong endpoint, stuck/looping, navigated off task, blocked by a
    verification wall/CAPTCHA, time or step limit, agent crash, infrastructure) and its cause: for a wrong value the
    step that typed or chose it, for a missing submission where the agent stopped; plus the self-report gap (the
    agent claims success but sent nothing). Then the divergence that explains it, the harmless ones, the payload's
    differences and the aligned steps (step numbers as in `clawrec view`, action seq beside them). Writes
    RUN/diagnosis.json (key `category`)."""
    try:
        finalize_if_dead(run_dir, "diagnose")
        run = RunDir(run_dir)
        if (run.path / DIAGNOSIS).is_dir():
            raise UsageError(f"{run.path / DIAGNOSIS}: is a folder; cannot write the diagnosis")
        spec, note = find_spec(run, spec_path)
        ref = resolve_reference(run, spec, reference)
        d = run_diagnosis(run, ref, spec)
    except (EvaluatorError, RunDirError) as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"{run_dir / DIAGNOSIS}: cannot write the diagnosis ({exc.strerror or exc})") from None
    if note:
        d.notes.append(note)
    render(Console(highlight=False, soft_wrap=True), d, show_all)
    click.echo(f"wrote {run.path / DIAGNOSIS}")
    return 0
