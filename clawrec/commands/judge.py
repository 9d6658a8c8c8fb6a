"""`clawrec judge RUN|RUNS_DIR`: judge runs against their task's reference; write verdict.json; one line each."""

from __future__ import annotations

import hashlib
from pathlib import Path

import click

from clawrec.errors import ClawrecError, UsageError
from clawrec.taskfile import expand_sites, has_placeholders
from clawrec.unfinished import finalize_if_dead, refusal
from evaluator.errors import EvaluatorError, RunDirError, VerdictError
from evaluator.judge import JUDGE_KINDS, judge_run
from evaluator.llm_judge import DEFAULT_MODEL, LLMJudgeConfig
from rundir.reader import RunDir
from taskspec.model import Spec
from taskspec.load import SpecError, load_spec, load_specs
from rundir import records as R


def _spec_error(exc: SpecError) -> str:
    first = str(exc.problems[0]) if exc.problems else str(exc)
    return first + (f" (and {len(exc.problems) - 1} more problems; see `clawrec validate`)"
                    if len(exc.problems) > 1 else "")


def find_runs(root: Path) -> list[Path]:
    """Run directories under `root` (a directory holding manifest.json is a run; its subfolders are not searched)."""
    out: list[Path] = []
    for d in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if (d / R.MANIFEST).exists() or (d / R.INTERCEPTIONS).exists() or (d / R.ACTIONS).exists():
            out.append(d)
        else:
            out.extend(find_runs(d))
    return out


class SpecSource:
    """Finds the spec of a run: --spec (a file, or a folder matched by task id), else the manifest's spec_path."""

    def __init__(self, given: Path | None) -> None:
        self.by_id: dict[str, Spec] = {}
        self.single: Spec | None = None
        if given is None:
            return
        try:
            if given.is_dir():
                self.by_id = {s.id: s for s in load_specs([given], allow_outside_files=True)}
            else:
                self.single = load_spec(given, allow_outside_files=True)
        except SpecError as exc:
            raise UsageError(_spec_error(exc)) from None

    def references(self) -> set[Path]:
        specs = list(self.by_id.values()) + ([self.single] if self.single else [])
        return {s.reference.resolve() for s in specs if s.reference}

    def for_run(self, run: RunDir, notes: list[str]) -> Spec | None:
        spec = self.by_id.get(run.task_id or "") or self.single
        if spec is None and run.spec_path is not None:
            if not run.spec_path.exists():
                notes.append(f"spec {run.spec_path} (manifest spec_path) not found")
            else:
                try:
                    spec = load_spec(run.spec_path, allow_outside_files=True)
                except SpecError as exc:
                    raise UsageError(_spec_error(exc)) from None
        if spec is None:
            notes.append("no spec (give --spec, or a manifest with spec_path): judged against the reference only")
            return None
        if run.task_id and spec.id != run.task_id:
            notes.append(f"spec id {spec.id!r} differs from the run's task id {run.task_id!r}")
        sites = run.manifest.get("sites")
        if isinstance(sites, dict) and sites and has_placeholders(spec):
            try:  # this run's local sites (random ports) fill the spec's {sites.NAME}, as at run time
                spec = expand_sites(spec, {str(k): str(v) for k, v in sites.items()})
            except UsageError as exc:
                notes.append(f"spec placeholders not filled: {exc}")
        if run.spec_sha256 and spec.path.is_file():
            now = hashlib.sha256(spec.path.read_bytes()).hexdigest()
            if now != run.spec_sha256:
                notes.append(f"spec {spec.path.name} changed since the run (sha256 differs from the manifest)")
        return spec


@click.command("judge")
@click.argument("path", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--reference", type=click.Path(file_okay=False, path_type=Path),
              help="Reference run directory (default: the spec's `reference`).")
@click.option("--judge", "kind", type=click.Choice(JUDGE_KINDS), default="payload", show_default=True,
              help="payload: deterministic, no model; llm: the agentic LLM judge; both: PASS only if both pass; "
                   "rubric: an answer-mode task's submitted answer scored against its rubric (LLM); "
                   "state: the org's end state (RUN/environment.json checks, no model, no reference); "
                   "progress: partial credit from a generated site's subgoal events (RUN/subgoals.jsonl, "
                   "`clawrec factory eval`): progress in verdict.json, PASS at 1.0.")
@click.option("--model", default=None, help=f"LLM judge model (default $CLAWREC_JUDGE_MODEL or {DEFAULT_MODEL}).")
@click.option("--spec", "spec_path", type=click.Path(exists=True, path_type=Path),
              help="Task spec file, or a folder of specs matched to runs by task id "
                   "(default: the manifest's spec_path).")
@click.option("--base-url", default=None, help="Anthropic-compatible server (default $ANTHROPIC_BASE_URL).")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="LLM verdict cache (default $CLAWREC_JUDGE_CACHE or ~/.cache/clawrec/judge).")
@click.option("--no-cache", is_flag=True, help="Do not read or write the LLM verdict cache.")
@click.option("--max-input-tokens", type=click.IntRange(min=1), default=None,
              help="LLM input-token budget per judged pair (the model must submit at 80 %).")
@click.option("--max-retries", type=click.IntRange(min=0), default=None,
              help="SDK retries on 408/429/5xx/529 before giving up.")
@click.option("--temperature", type=click.FloatRange(0, 1), default=None,
              help="Send this sampling temperature (e.g. 0) with anthropic-version 2023-06-01; the current API "
                   "version rejects any temperature, so by default none is sent.")
@click.option("--allow-incomplete", is_flag=True,
              help="Judge a run that did not finish (status interrupted: its clawrec was killed; or still running) "
                   "instead of refusing it.")
def judge(path: Path, reference: Path | None, kind: str, model: str | None, spec_path: Path | None,
          base_url: str | None, cache_dir: Path | None, no_cache: bool, max_input_tokens: int | None,
          max_retries: int | None, temperature: float | None, allow_incomplete: bool) -> int:
    """Judge PATH (one run directory, or a folder of runs: each against its task's reference).

    Writes RUN/verdict.json and prints one line per run: the verdict, the judge, the first failed condition.
    A FAIL verdict is a result, not an error (exit 0); a run that cannot be judged makes the exit code 1. A run
    whose clawrec process was killed is finalized first (status interrupted) and, like a run still being
    recorded, refused unless --allow-incomplete."""
    cfg = LLMJudgeConfig()
    for k, v in (("model", model), ("base_url", base_url), ("max_input_tokens", max_input_tokens),
                 ("max_retries", max_retries), ("cache_dir", cache_dir), ("temperature", temperature)):
        if v is not None:
            setattr(cfg, k, v)
    if no_cache:
        cfg.cache_dir = None
    specs = SpecSource(spec_path)
    try:
        finalize_if_dead(path, "judge", quiet=True)
        runs = [RunDir(path)]
        batch = False
    except RunDirError as exc:
        if (path / R.MANIFEST).exists():  # a run whose manifest is unreadable, not a folder of runs
            raise UsageError(str(exc)) from None
        found = find_runs(path)
        if not found:
            raise UsageError(f"{path}: not a run directory, and no run directories below it") from None
        skip = specs.references() | ({reference.resolve()} if reference else set())
        runs, batch = [], True
        for d in found:
            if d.resolve() in skip:
                continue
            try:
                finalize_if_dead(d, "judge", quiet=True)
                runs.append(RunDir(d))
            except RunDirError as exc:
                click.echo(f"clawrec: {exc}", err=True)
    counts = {"PASS": 0, "FAIL": 0, "error": 0}
    for run in runs:
        notes: list[str] = []
        try:
            why_not = None if allow_incomplete else refusal(run.path, run.status)
            if why_not:
                raise ClawrecError(why_not)
            spec = specs.for_run(run, notes)
            if batch and spec is not None and spec.reference and spec.reference.resolve() == run.path.resolve():
                continue  # a reference run is not judged against itself
            if spec is None and reference is None and kind not in ("state", "progress"):  # a PASS against nothing would be a lie
                why = next((p.split(";")[0] for p in run.problems if p.startswith(R.MANIFEST)),
                           next((n for n in notes if "not found" in n), f"{R.MANIFEST} names no spec"))
                raise UsageError(f"{run.path}: nothing to judge against ({why}): no spec and no reference run; "
                                 "pass --spec or --reference")
            if (run.path / R.VERDICT).is_dir():
                raise UsageError(f"{run.path / R.VERDICT}: is a folder; cannot write the verdict")
            try:
                v = judge_run(run, spec, reference, kind, cfg, notes)
            except OSError as exc:  # verdict.json or the cache cannot be written (read-only folder, full disk)
                raise UsageError(f"{exc.filename2 or exc.filename or run.path}: cannot write "
                                 f"({exc.strerror or exc})") from None
        except (EvaluatorError, RunDirError, ClawrecError) as exc:
            if not batch:
                if isinstance(exc, ClawrecError):
                    raise
                raise (UsageError if isinstance(exc, (RunDirError, VerdictError)) else ClawrecError)(
                    str(exc)) from None
            counts["error"] += 1
            msg = str(exc)
            click.echo(f"clawrec: {msg if msg.startswith(str(run.path)) else f'{run.path}: {msg}'}", err=True)
            continue
        counts[v.verdict] += 1
        click.echo(f"{run.path}: {v.one_line()}")
        for note in v.notes:
            click.echo(f"  note: {note}", err=True)
    if batch:
        click.echo(f"clawrec: judged {counts['PASS'] + counts['FAIL']} runs: {counts['PASS']} PASS, "
                   f"{counts['FAIL']} FAIL" + (f", {counts['error']} not judged" if counts["error"] else ""))
    return 1 if counts["error"] else 0
