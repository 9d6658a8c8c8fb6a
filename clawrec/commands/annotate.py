"""`clawrec annotate RUN`: list a recorded run's candidate terminal requests and write a spec for one of them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from rundir import manifest as M
from rundir import records as R

from clawrec.errors import ClawrecError, UsageError, check_creatable
from taskspec.annotate import (
    CAUGHT, HELD, AnnotateError, Candidate, Options, Run, build_spec, candidates, dump_spec, frames, read_run, sent,
)
from taskspec.model import CATEGORIES
from taskspec.load import SpecError, load_spec


def describe(n: int, c: Candidate) -> str:
    """One line per candidate: N, method, URL, body (or GET query) keys, and why it ranks where it does."""
    keys = ", ".join(c.keys()[:8]) + (", …" if len(c.keys()) > 8 else "")
    marks = [m for m, on in (("caught", c.intercepted in CAUGHT),
                             (f"blocked by the person: {R.INTERCEPTIONS}:{c.held}", c.held is not None),
                             ("blocked at the hold timeout", c.intercepted == HELD and c.held is None),
                             (f"+{c.gap:.2f}s after the last click", c.after_last_action and not c.intercepted))
             if on]
    return f"{n:>3}  {c.method:<6} {c.url}  [{keys or c.kind}]" + (f"  ({'; '.join(marks)})" if marks else "")


def _task_id(run_path: Path, manifest: dict) -> str:
    task = M.upgrade(manifest).get("task")
    return str((task.get("id") if isinstance(task, dict) else None) or run_path.resolve().name)


def check_before_writing(text: str, out: Path, run: Run) -> tuple[list[str], Any]:
    """`check-spec` on the annotated run (its reference) before the spec is written: (the report lines, the check
    with the spec's rule filled for the run; None when the check could not run)."""
    from clawrec.taskfile import expand_sites
    from taskspec.spec_runs import check_run, for_run, load_spec_text, report

    try:
        out.parent.mkdir(parents=True, exist_ok=True)  # the spec's relative `reference` resolves from there
        spec = for_run(load_spec_text(text, out), run, expand_sites)
    except Exception as exc:  # the validation after writing names the problem
        return [f"check-spec: not run ({type(exc).__name__}: {exc})"], None
    check = check_run(spec, run, "reference", run.writes_seen)
    return [f"check-spec: {line}" for line in report(check)], (check, spec.intercept[0])


def _out_path(out: Path | None, spec_id: str | None, manifest: dict | None, run_dir: Path,
              force: bool) -> tuple[Path, str]:
    """(--out, spec id), checked before any work: the name fits the id, no file is overwritten without --force,
    the folder can be written."""
    if spec_id is None:
        spec_id = out.stem if out is not None else _task_id(run_dir, manifest or {})
    out = out or Path(f"{spec_id}.yaml")
    if out.name != f"{spec_id}.yaml":
        raise UsageError(f"--out {out}: a spec with id {spec_id!r} must be named {spec_id}.yaml")
    if out.exists() and not force:
        raise UsageError(f"{out}: already exists (use --force to overwrite)")
    check_creatable(out, f"--out {out}")
    return out, spec_id


def _fail(message: str) -> ClawrecError:
    err = ClawrecError(message)
    err.exit_code = 1
    return err


@click.command("annotate")
@click.argument("run_dir", metavar="RUN", type=click.Path(path_type=Path))
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path),
              help="Spec file to write (default: ID.yaml in the current folder; its name must be ID.yaml).")
@click.option("--pick", type=click.IntRange(min=1),
              help="Write the spec for candidate N of the list (default: the top one).")
@click.option("--id", "spec_id", help="Spec id (default: the --out file's name, else the run's task id).")
@click.option("--instruction", help="Task instruction (default: the run's task instruction).")
@click.option("--equals", "equals", default="",
              help="Comma-separated payload fields whose recorded values the rule must see (enum-like constants).")
@click.option("--fields", "only_fields", default="",
              help="Comma-separated fields the rule must also require. By default it requires only those that tell "
                   "the request apart from the run's other requests to the same URL and method (usually none), so "
                   "a submission missing an optional field is still caught.")
@click.option("--nonempty", "nonempty", default="",
              help="Comma-separated fields the rule must see present and not empty (a reply's text, where the same "
                   "form is also posted with it empty). Annotate adds such a field by itself when that is what tells "
                   "the request apart.")
@click.option("--category", type=click.Choice(CATEGORIES), help="Spec category (default: the source spec's).")
@click.option("--from-spec", "from_spec", type=click.Path(dir_okay=False, path_type=Path),
              help="The spec the run was recorded for: the new spec keeps its category, user, files, limits, verify "
                   "and secrets (default: the spec file the run's manifest names, if it still exists; else the "
                   "user, files and limits the run recorded in task.json).")
@click.option("--list", "list_only", is_flag=True, help="Only print the ranked candidates; write nothing.")
@click.option("--force", is_flag=True, help="Overwrite an existing spec file.")
def annotate(run_dir: Path, out: Path | None, pick: int | None, spec_id: str | None, instruction: str | None,
             equals: str, only_fields: str, nonempty: str, category: str | None, from_spec: Path | None,
             list_only: bool, force: bool) -> int:
    """Turn a recorded RUN (e.g. a person's reference run) into an interception spec.

    Prints the candidate terminal requests (mutating, not analytics/beacons; sent WebSocket messages; GET form
    submissions and WebSocket messages blocked in hold mode), best first: a request the run caught, then the last
    one the person blocked in hold mode (`record`), then the one right after the final click/submit (the GET
    form's query is its payload; a WebSocket message gets a ws:// rule). Writes a v1 spec for the top one
    (or --pick N): URL glob with ids/hashes as `*` and `{sites.NAME}` for local sites, only the fields that tell it
    apart from the run's other requests to that endpoint (where presence cannot: a text the others send empty as
    `nonempty`, else one flag value such as `_draft: ''` in `equals`), the field naming its action (`action`,
    `_action`, `operationName`, the pressed submit button's name) pinned in `equals`, `expect` from the payload's
    values, token-shaped fields as `volatile`, `reference:` pointing at RUN, and the task's category, user, files,
    limits, verify and secrets.

    `writes:` proposes the earlier state-changing requests that reached the site before it (in a hold-mode run:
    the ones the person Allowed) and carry the task's values (a `user:` value, a string the instruction quotes, a
    number it names, a task file), each with `expect` holding those fields only (never CSRF tokens, session ids
    or timestamps); the spec's comment says which task value each field carries and which writes were left out.

    A person who blocked the same submission several times (pressed submit again) gets the last attempt as the
    terminal request. Exit 1, with the next step in one line, when the person blocked different submissions and no
    --pick says which is the final one, or when check-spec does not accept the spec on RUN (the spec is written).
    """
    from taskspec import next_step
    from taskspec.attempts import distinct, split_blocked
    from taskspec.task_source import SourceError, kept_fields, merged, source_path

    if not list_only and out is not None:  # output paths first: no work for a spec that cannot be written
        out, spec_id = _out_path(out, spec_id, None, run_dir, force)
    try:
        run = read_run(run_dir)
        found = candidates(run)
    except AnnotateError as exc:
        raise UsageError(str(exc)) from None
    if not list_only and out is None:
        out, spec_id = _out_path(out, spec_id, run.manifest, run_dir, force)
    if not found:
        raise UsageError(f"{run_dir}: no candidate terminal request (no POST/PUT/PATCH/DELETE other than "
                         "analytics, no sent WebSocket message in http.jsonl, nothing blocked in interceptions.jsonl)")
    for n, c in enumerate(found, 1):
        click.echo(describe(n, c))
    if list_only:
        return 0
    assert out is not None and spec_id is not None
    n = 1 if pick is None else pick
    if not 1 <= n <= len(found):
        raise UsageError(f"--pick {n}: there are {len(found)} candidates (1-{len(found)})")
    again, different = split_blocked(found) if pick is None else ([], [])
    if different:
        blocked = [found.index(c) + 1 for c in again + different]
        raise _fail(f"{run_dir}: " + next_step.pick_one(run_dir, out, 1, blocked, distinct([found[0], *different])))
    if again:
        click.echo(f"the person blocked the same submission {len(again) + 1} times (candidates "
                   f"{', '.join(str(found.index(c) + 1) for c in [found[0], *again])}): the last attempt, candidate 1 "
                   f"({found[0].where}), is the terminal request", err=True)
    keys = tuple(k.strip() for k in equals.split(",") if k.strip())
    only = tuple(k.strip() for k in only_fields.split(",") if k.strip())
    full = tuple(k.strip() for k in nonempty.split(",") if k.strip())
    try:
        spec = build_spec(run, found[n - 1], Options(out=out, id=spec_id, instruction=instruction, equals=keys,
                                                     category=category, fields=only, nonempty=full))
        kept, notes = kept_fields(source_path(from_spec, run.manifest), run.task, out)
    except (AnnotateError, SourceError) as exc:
        raise UsageError(str(exc)) from None
    run.notes.extend(notes)
    text = dump_spec(merged(spec, kept, category), run, found[n - 1], out)
    report, checked = check_before_writing(text, out, run)
    for line in report:  # on stderr: stdout stays the candidate list + `wrote`
        click.echo(line, err=True)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot write ({exc.strerror or exc})") from None
    try:
        load_spec(out)
    except SpecError as exc:  # a bug here, not the user's: say so, keep the file for inspection
        raise UsageError(f"wrote {out} but it does not validate: {exc.problems[0] if exc.problems else exc}") \
            from None
    click.echo(f"wrote {out} (candidate {n}: {found[n - 1].method} {found[n - 1].url})")
    if checked is not None and not checked[0].ok:
        from taskspec.write_runs import problem as write_problem

        if checked[0].problem == write_problem(checked[0].writes):  # the rule is right; a proposed write is not
            raise _fail(f"check-spec does not accept {out} on {run_dir}: {checked[0].problem} (edit or remove those "
                        "`writes:` items)")
        others = sent(run) + frames(run)
        chosen = found[n - 1]
        raise _fail(f"check-spec does not accept {out} on {run_dir}: " + next_step.fix_rule(
            run_dir, out, pick, keys, checked[1], chosen.sent(), others, f"{chosen.source}:{abs(chosen.line)}",
            checked[0].terminal))
    return 0
