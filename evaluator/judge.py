"""One entry point for judging a run: pick the judges, resolve the reference, combine, write verdict.json.

The pipeline and `clawrec judge` both call `judge_run`; spec loading stays with the caller (evaluator only
depends on the Spec data type), so a missing or changed spec is the caller's note to add.
"""

from __future__ import annotations

from pathlib import Path

from taskspec.model import Spec
from evaluator.errors import JudgeError, RunDirError
from evaluator.llm_judge import LLMJudgeConfig, judge_llm
from evaluator.payload_judge import judge_payload
from evaluator.state_judge import judge_state
from rundir.reader import RunDir
from evaluator.verdict import Verdict, write_verdict

JUDGE_KINDS = ("payload", "llm", "both", "rubric", "state", "progress")


def open_reference(path: str | Path | None, notes: list[str]) -> RunDir | None:
    """The reference run, or None with a note saying why (missing, not a run)."""
    if path is None:
        notes.append("no reference run given (spec has no `reference`, no --reference)")
        return None
    try:
        return RunDir(path)
    except RunDirError as exc:
        notes.append(f"reference unusable: {exc}")
        return None


def combine(payload: Verdict, llm: Verdict) -> Verdict:
    """Both judges: PASS only when both pass; each full verdict is kept under `judges`."""
    conds = [*payload.conditions, *llm.conditions]
    for c in payload.conditions:
        c.condition = f"[payload] {c.condition}"
    for c in llm.conditions:
        c.condition = f"[llm] {c.condition}"
    return Verdict(
        verdict="PASS" if payload.passed and llm.passed else "FAIL", judge="both", conditions=conds,
        justification=f"payload: {payload.verdict}: {payload.justification} | llm: {llm.verdict}: "
                      f"{llm.justification}",
        divergence=llm.divergence, usage=llm.usage, skipped_fields=payload.skipped_fields,
        notes=list(dict.fromkeys(payload.notes + llm.notes)), run=payload.run, reference=payload.reference,
        task_id=payload.task_id, spec_sha256=payload.spec_sha256, model=llm.model, writes=payload.writes,
        judges={"payload": payload.to_dict(), "llm": llm.to_dict()})


def judge_run(run: str | Path | RunDir, spec: Spec | None = None, reference: str | Path | RunDir | None = None,
              judge: str = "payload", llm_config: LLMJudgeConfig | None = None, notes: list[str] | None = None,
              write: bool = True) -> Verdict:
    """Judge one run and (by default) write RUN/verdict.json. `reference` defaults to the spec's reference."""
    if judge not in JUDGE_KINDS:
        raise ValueError(f"judge must be one of {', '.join(JUDGE_KINDS)}")
    extra = list(notes or [])
    rd = run if isinstance(run, RunDir) else RunDir(run)
    if judge in ("rubric", "state", "progress"):  # no reference run involved
        if judge == "rubric":  # answer mode: the submitted answer against the rubric
            from evaluator.rubric_judge import judge_rubric

            verdict = judge_rubric(rd, spec, llm_config)
        elif judge == "progress":  # partial credit from the site's subgoal events (generated sites)
            from evaluator.progress_judge import judge_progress

            verdict = judge_progress(rd)
        else:  # the org's end state, recorded before its reset (environment.json)
            verdict = judge_state(rd, spec)
        verdict.notes = list(dict.fromkeys(extra + verdict.notes))
        if write:
            write_verdict(rd.path, verdict)
        return verdict
    if judge in ("payload", "both") and spec is not None and spec.answer is not None:
        raise JudgeError(f"the payload judge cannot judge a free-text answer ({spec.id} is an answer-mode task): "
                         "use --judge rubric")
    if isinstance(reference, RunDir):
        ref = reference
    else:
        ref = open_reference(reference if reference is not None else (spec.reference if spec else None), extra)
    if ref is not None and ref.path.resolve() == rd.path.resolve():
        raise RunDirError(f"{rd.path}: is its own reference")
    if judge == "payload":
        verdict = judge_payload(rd, spec, ref)
    elif judge == "llm":
        verdict = judge_llm(rd, spec, ref, llm_config)
    else:
        verdict = combine(judge_payload(rd, spec, ref), judge_llm(rd, spec, ref, llm_config))
    verdict.notes = list(dict.fromkeys(extra + verdict.notes))
    if write:
        write_verdict(rd.path, verdict)
    return verdict
