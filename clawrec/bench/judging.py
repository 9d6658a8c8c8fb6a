"""Judge one finished run in the runner process, as soon as it finishes, then diagnose it.

A judge that cannot answer (no key, HTTP errors after the SDK's retries, malformed output, an unreadable run) is
never a FAIL: the run gets `judge_error.json` (→ `judge_inconclusive` in the results), which `--rejudge` retries.
The diagnosis (RUN/diagnosis.json: failure category and self-report gap, the summary counts them) is written by
evaluator.diagnose, the code `clawrec diagnose` runs; it needs no LLM, so a judge outage does not stop it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from clawrec.bench.state import JUDGE_ERROR_FILE, SlotState, write_json

DIAGNOSIS_FILE = "diagnosis.json"


def judge_slot(st: SlotState, kind: str, reference: str | None) -> str:
    """Writes verdict.json (PASS/FAIL) or judge_error.json, then diagnosis.json; returns PASS | FAIL |
    judge_inconclusive."""
    from clawrec.commands.judge import SpecSource
    from clawrec.errors import ClawrecError
    from evaluator.errors import EvaluatorError
    from evaluator.judge import judge_run
    from rundir.reader import RunDir

    err_path = st.path / JUDGE_ERROR_FILE
    try:
        run = RunDir(st.path)
        notes: list[str] = []
        spec = SpecSource(Path(st.slot.spec.path)).for_run(run, notes)
        verdict = judge_run(run, spec, reference, kind, None, notes)
    except (EvaluatorError, ClawrecError, OSError) as exc:
        result = _inconclusive(st, kind, f"{type(exc).__name__}: {exc}")
    except Exception as exc:  # a judge bug must not stop a night's bench; the run stays re-judgeable
        result = _inconclusive(st, kind, f"judge failed: {type(exc).__name__}: {exc}")
    else:
        err_path.unlink(missing_ok=True)
        st.verdict, st.judge_error = verdict.to_dict(), None
        result = verdict.verdict
    diagnose_slot(st, reference)
    return result


def diagnose_slot(st: SlotState, reference: str | None) -> str | None:
    """Write RUN/diagnosis.json as `clawrec diagnose` does (evaluator.diagnose; the reference the judge uses: the
    bench's --reference, else the spec's; none usable → the category comes from the verdict and the run alone).
    Returns the category. Never raises: a run that cannot be diagnosed (or an answer-mode task, outside the taxonomy
    of submissions) gets no diagnosis.json (`unclassified` if judged FAIL). One that is there is kept: a finished
    run's folder never changes (a re-run moves it aside), and a concurrent writer (`bench report`) may own it."""
    from clawrec.commands.judge import SpecSource
    from evaluator.diagnose import diagnose
    from evaluator.judge import open_reference
    from rundir.reader import RunDir

    try:
        run = RunDir(st.path)
        notes: list[str] = []
        spec = SpecSource(Path(st.slot.spec.path)).for_run(run, notes)
        if spec is not None and spec.answer is not None:
            return None
        ref = open_reference(reference or (spec.reference if spec is not None else None), notes)
        if ref is not None and ref.path.resolve() == run.path.resolve():
            ref = None
        return diagnose(run, ref, spec).category
    except Exception:  # a diagnosis bug must not stop the bench: the run's category is just unknown (unclassified)
        return None


def _inconclusive(st: SlotState, kind: str, message: str) -> str:
    data: dict[str, Any] = {"judge": kind, "error": message[:2000],
                            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    write_json(st.path / JUDGE_ERROR_FILE, data)
    st.judge_error = data
    return "judge_inconclusive"
