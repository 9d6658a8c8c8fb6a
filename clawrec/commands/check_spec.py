"""`clawrec check-spec TASK.yaml [RUN...]`: are the spec's rules right? Offline, on recorded runs, with the live
interceptor's matcher (taskspec/spec_runs.py)."""

from __future__ import annotations

from pathlib import Path

import click

from clawrec.errors import ClawrecError, UsageError


def run_check(spec_path: str, runs: list[tuple[Path, str | None]]) -> tuple[list[str], bool]:
    """(report lines, every run passed); UsageError for a bad spec or run directory."""
    from clawrec.taskfile import expand_sites
    from taskspec.annotate import AnnotateError
    from taskspec.load import load_spec
    from taskspec.yaml_source import SpecError
    from taskspec.spec_runs import check_run, for_run, load_runs, report

    try:
        spec = load_spec(spec_path)
    except SpecError as exc:
        raise UsageError(str(exc.problems[0]) if exc.problems else str(exc)) from None
    if not spec.intercept:
        raise UsageError(f"{spec_path}: intercept: the spec has no rule to check")
    if not runs:
        if spec.reference is None:
            raise UsageError(f"{spec_path}: no RUN given and the spec names no `reference`")
        runs = [(Path(spec.reference), "reference")]
    try:
        loaded = load_runs(runs)
    except AnnotateError as exc:
        raise UsageError(str(exc)) from None
    lines, ok = [], True
    for run, role in loaded:
        try:
            filled = for_run(spec, run, expand_sites)
        except Exception as exc:  # a placeholder the run's manifest does not fill
            raise UsageError(f"{run.path}: cannot fill the spec's site placeholders: {exc}") from None
        check = check_run(filled, run, role)
        lines += report(check)
        ok = ok and check.ok
    return lines, ok


@click.command("check-spec")
@click.argument("task", type=click.Path(dir_okay=False, path_type=str))
@click.argument("runs", nargs=-1, type=click.Path(file_okay=False, path_type=Path))
@click.option("--reference", "references", multiple=True, type=click.Path(file_okay=False, path_type=Path),
              help="A reference run: its terminal request must match exactly once, and nothing else.")
@click.option("--benign", "benign", multiple=True, type=click.Path(file_okay=False, path_type=Path),
              help="A run that must not match at all.")
def check_spec(task: str, runs: tuple[Path, ...], references: tuple[Path, ...], benign: tuple[Path, ...]) -> int:
    """Check TASK.yaml's intercept rules offline against every request recorded in each run (http.jsonl,
    interceptions.jsonl, WebSocket messages), with the live interceptor's matcher; print each run's matches.

    A RUN is a reference when its manifest says a person recorded it (`clawrec record`), else benign. With no run
    at all, the spec's `reference`. Exit 0 only when each reference matches exactly once, at its terminal request
    (the request it caught; else the one a person blocked in hold mode), and no benign run matches; 1 otherwise.
    Each `writes:` rule must read, in each reference, a write that reached the site before the terminal request
    (the last it matches, as the judge does) holding every field of its `expect`, and match in a benign run no
    request of another shape (one lacking an `expect` field, which a real run could send last: the same write made
    by a run that stopped early is fine); the report shows the write each one reads and each rule's `equals`.
    """
    given = [(p, None) for p in runs] + [(p, "reference") for p in references] + [(p, "benign") for p in benign]
    lines, ok = run_check(task, given)
    for line in lines:
        click.echo(line)
    if not ok:
        err = ClawrecError("check-spec: the spec does not fit the runs (see above)")
        err.exit_code = 1
        raise err
    click.echo("check-spec: OK")
    return 0
