"""Diagnose's "wrong value in an earlier step" (issue 33): the final request was right, an earlier write was not.

The payload judge marks each condition of a spec's `writes:` with its `source` (evaluator/writes_judge.py: the
write, the request, the step). When only such conditions failed, the cause is the earliest wrong write: the step
that typed or chose its value when one did (failure.value_step), else the step the write was sent in; a write that
never reached the site is named with the step of the final request it should have come before.
"""

from __future__ import annotations

from typing import Any

from evaluator.trajectory import Trajectory
from evaluator.verdict import Condition
from rundir.reader import RunDir
from taskspec.fieldpath import MISSING
from taskspec.terminal import terminal_order

CATEGORY = "wrong_earlier_value"
LABEL = "wrong value in an earlier step"


def is_write(c: Condition) -> bool:
    """A condition judging one of the spec's earlier writes (not the final request)."""
    return isinstance(c.source, dict) and bool(c.source.get("write"))


def _sent_value(run: RunDir, source: dict[str, Any]) -> Any:
    from evaluator.writes_judge import write_value

    line = (source.get("request") or {}).get("line")
    h = run.http.at_line(line) if isinstance(line, int) else None
    got = write_value(h, str(source.get("field"))) if h is not None else MISSING
    return None if got is MISSING else got


def earlier_cause(tr: Trajectory, failed: list[Condition]) -> tuple[str, int | None, Any, dict[str, Any]]:
    """(summary, step, the action (failure.Step) or None, detail) of the earliest failed write condition."""
    from evaluator.failure import _where, value_step

    sent = [c for c in failed if (c.source or {}).get("request")]
    first = min(sent, key=lambda c: c.source.get("step") or 0) if sent else failed[0]
    src = first.source or {}
    field, write, step = str(src.get("field") or ""), str(src.get("write") or ""), src.get("step")
    detail: dict[str, Any] = {"field": field, "write": write, "write_step": step}
    request = src.get("request")
    if not request:
        catches = tr.run.interceptions.records
        final = tr.at(terminal_order(catches)[0].t).n if catches else None
        missing = sorted({str((c.source or {}).get("field")) for c in failed
                          if (c.source or {}).get("write") == write})
        summary = (f"the write {write} never reached the site before the final request"
                   + (f" at step {final}" if final is not None else "") + f": {', '.join(missing)} missing")
        return summary, final, None, {**detail, "missing": missing}
    got = _sent_value(tr.run, src)
    detail.update(value=got, http_line=request.get("line"))
    typed = value_step(tr, field, got) if got is not None else None
    if typed is not None and step is not None and (tr.number_of(typed) or 0) > step:
        typed = None  # typed after the write was sent: not what the site holds
    sent_at = f"the write {write} at step {step} ({request.get('method')} {request.get('url')})"
    how = f"{_where(tr, typed)} typed {got!r} into {typed.target}; " if typed is not None and typed.type == "fill" \
        else f"{_where(tr, typed)} chose {got!r}; " if typed is not None else ""
    summary = f"{how}{sent_at} sent {field} = {got!r}: {first.condition}"
    return summary, tr.number_of(typed) if typed is not None else step, typed, detail
