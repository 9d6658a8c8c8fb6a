"""Judge one finished run in the runner process, as soon as it finishes.

A judge that cannot answer (no key, HTTP errors after the SDK's retries, malformed output, an unreadable run) is
never a FAIL: the run gets `judge_error.json` (→ `judge_inconclusive` in the results), which `--rejudge` retries.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from clawrec.bench.state import JUDGE_ERROR_FILE, SlotState, write_json


def judge_slot(st: SlotState, kind: str, reference: str | None) -> str:
    """Writes verdict.json (PASS/FAIL) or judge_error.json; returns PASS | FAIL | judge_inconclusive."""
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
        return _inconclusive(st, kind, f"{type(exc).__name__}: {exc}")
    except Exception as exc:  # a judge bug must not stop a night's bench; the run stays re-judgeable
        return _inconclusive(st, kind, f"judge failed: {type(exc).__name__}: {exc}")
    err_path.unlink(missing_ok=True)
    st.verdict, st.judge_error = verdict.to_dict(), None
    return verdict.verdict


def _inconclusive(st: SlotState, kind: str, message: str) -> str:
    data: dict[str, Any] = {"judge": kind, "error": message[:2000],
                            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    write_json(st.path / JUDGE_ERROR_FILE, data)
    st.judge_error = data
    return "judge_inconclusive"
