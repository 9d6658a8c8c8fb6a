"""clawrec's judge as an Inspect scorer: the sample's clawrec run judged as `clawrec judge` judges it.

Value: CORRECT for PASS, INCORRECT for FAIL, NOANSWER when the judge cannot answer (inconclusive is never FAIL).
Explanation: the verdict's reasons (its justification and every unmet condition) and the captured payload.
Metadata: the run directory, the verdict, the failure diagnosis (evaluator/diagnose.py, as `clawrec diagnose`
writes it) and the verification-wall flag. verdict.json and diagnosis.json are written into the run directory.
`judge`: payload (default; rubric for answer-mode specs), state, progress, llm or both (payload + LLM). With
`grader` (an Inspect model name) the LLM judge speaks through Inspect's model API (clawrec/inspect/grader.py), and
judges alone unless `judge="both"`; without it, `llm` is clawrec's own (the anthropic SDK, ANTHROPIC_API_KEY).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from inspect_ai.scorer import CORRECT, INCORRECT, NOANSWER, Score, Scorer, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState

from clawrec.inspect.solver import RUN_DIR_KEY

PAYLOAD_LIMIT = 4000  # characters of the captured payload in the explanation


@scorer(metrics=[accuracy(), stderr()])
def clawrec_scorer(judge: str = "payload", grader: str | None = None) -> Scorer:
    """Judge each sample's clawrec run (see the module's docstring)."""

    async def score(state: TaskState, target: Target) -> Score:
        run_dir = state.store.get(RUN_DIR_KEY) or (state.metadata.get("clawrec") or {}).get("run_dir")
        if not run_dir:
            return Score(value=NOANSWER, explanation="no clawrec run for this sample (use clawrec_solver)")
        kind = ("both" if judge == "both" else "llm") if grader is not None else judge
        llm = (grader, asyncio.get_running_loop()) if grader is not None else None
        return await asyncio.to_thread(judge_sample, Path(run_dir), state.metadata.get("spec"), kind, llm)

    return score


def judge_sample(run_dir: Path, spec_path: str | None, judge: str, llm: Any = None) -> Score:
    """Judge + diagnose one run directory (blocking: the scorer runs it in a thread). `llm`: (grader model, the
    eval's event loop) for the LLM judge through Inspect."""
    from clawrec.commands.judge import SpecSource
    from evaluator.diagnose import diagnose
    from evaluator.judge import judge_run, open_reference
    from rundir.reader import RunDir

    run = RunDir(run_dir)
    notes: list[str] = []
    spec = SpecSource(Path(spec_path)).for_run(run, notes) if spec_path else None
    kind = "rubric" if judge == "payload" and spec is not None and spec.answer is not None else judge
    meta: dict[str, Any] = {"run_dir": str(run_dir), "judge": kind}
    try:
        if llm is not None and kind in ("llm", "both"):
            from clawrec.inspect.grader import judge_with_grader

            verdict = judge_with_grader(run, spec, kind, llm[0], llm[1], notes).to_dict()
        else:
            verdict = judge_run(run, spec, None, kind, None, notes).to_dict()
    except Exception as exc:  # a judge that cannot answer: inconclusive, never FAIL
        return Score(value=NOANSWER, explanation=f"judge inconclusive: {type(exc).__name__}: {exc}",
                     metadata={**meta, "verdict": None})
    diag = None
    if kind != "rubric":
        try:
            ref = open_reference(spec.reference if spec is not None else None, [])
            diag = diagnose(run, ref if ref is None or ref.path.resolve() != run.path.resolve() else None, spec)
        except Exception as exc:  # a diagnosis bug never hides the verdict
            meta["diagnosis_error"] = f"{type(exc).__name__}: {exc}"
    category = diag.category if diag is not None else None
    meta.update(verdict=verdict, diagnosis=category, diagnosis_headline=diag.headline() if diag else None,
                verification_wall=category == "verification_wall")
    value = {"PASS": CORRECT, "FAIL": INCORRECT}.get(str(verdict.get("verdict")), NOANSWER)
    payload = payload_text(run)
    return Score(value=value, answer=payload, explanation=explanation(verdict, diag.headline() if diag else None,
                                                                      payload), metadata=meta)


def explanation(verdict: dict[str, Any], diagnosis: str | None, payload: str | None) -> str:
    """The verdict's reasons (justification, each unmet condition), the diagnosis and the captured payload."""
    lines = [f"{verdict.get('verdict')}: {verdict.get('justification') or ''}".rstrip()]
    for c in verdict.get("conditions") or []:
        if not c.get("met"):
            lines.append(f"- {c.get('condition')}: {c.get('detail') or ''}".rstrip(": "))
    if diagnosis and not diagnosis.startswith("passed"):
        lines.append(f"diagnosis: {diagnosis}")
    lines.append(f"captured payload: {payload or '(none: no terminal request was caught)'}")
    return "\n".join(lines)


def payload_text(run: Any) -> str | None:
    """The first caught terminal request's decoded body, as JSON text (bounded)."""
    records = list(run.interceptions.records) if run.interceptions.present else []
    if not records:
        return None
    first = records[0]
    body = first.get("body") if isinstance(first, dict) else getattr(first, "body", None)
    text = json.dumps(body, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= PAYLOAD_LIMIT else text[:PAYLOAD_LIMIT] + " …"
