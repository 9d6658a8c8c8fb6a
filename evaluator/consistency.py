"""Execution consistency of runs of one task (Cybernaut §3.4): how steadily agents repeat, 0–1 per pair of runs.

A pair's score is path × outcome:
- path: both runs' essential steps (evaluator/essential.py: no scrolls, focus, repeated or retried clicks, clicks on
  plain text; a click into a field is part of typing into it) keyed on type + role + accessible name, fields filled
  on one form compared in either order, aligned with diagnose's alignment (evaluator/diagnose.py `align`). Each
  aligned row that is not the same step with the same value kind (the task's value by its placeholder, so runs
  with other user details still agree; any other value by its folded text) is one divergence, and each multiplies
  the score by DECAY. Why a factor per divergence and not a share of steps: one other flight picked, or one filter
  skipped, is a different execution however long the run; a share would call a 20-step run that skipped a filter
  95 % consistent. Timing never counts.
- outcome: the terminal payloads (each run's terminal request, taskspec/terminal.py): method and URL path, then the share of
  payload fields (leaves, volatile ones such as tokens left out) that agree, values compared as the payload judge
  does (case, whitespace, dates, phone numbers) or as the same task value. Neither run submitted: 1; only one: 0.
"""

from __future__ import annotations

import dataclasses
import itertools
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluator.diagnose import Row, align
from evaluator.essential import essential_steps
from evaluator.normalize import same, text
from evaluator.same_site import page_key
from evaluator.sop_values import placeholdered, read_task, task_values
from evaluator.steps import Step
from rundir.reader import RunDir
from taskspec import fieldpath, volatile
from taskspec.terminal import terminal_order

DECAY = 2 / 3
DEFAULT_THRESHOLD = 0.8


@dataclass
class Side:
    """One run as the score reads it: its keyed steps, its task values and its terminal payload."""

    run: RunDir
    steps: list[Step]
    values: dict[str, Any]
    catch: Any


@dataclass
class Pair:
    a: str
    b: str
    score: float
    path: float
    outcome: float
    divergences: list[str] = field(default_factory=list)
    payload_differences: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "score": round(self.score, 4), "path": round(self.path, 4),
                "outcome": round(self.outcome, 4), "divergences": self.divergences,
                "payload_differences": self.payload_differences}


def _keyed(s: Step, target: dict[str, Any]) -> Step:
    """The step keyed on role + accessible name (ids may be generated per session), its id-based key as fallback."""
    role = str(target.get("role") or target.get("tag") or "")
    name = text(target.get("name") or target.get("text") or "")
    if s.type in ("navigate", "tab_switch") or not name:
        return s
    return dataclasses.replace(s, identity=f"{role}|{name[:60]}")


def _any_order_fills(steps: list[Step]) -> list[Step]:
    """Consecutive fills on one page in a fixed order (by field), so that filling a form's fields in another order
    aligns."""
    out: list[Step] = []
    i = 0
    while i < len(steps):
        j = i
        page = str(steps[i].url or "").split("#", 1)[0]
        while j < len(steps) and steps[j].type == "fill" and str(steps[j].url or "").split("#", 1)[0] == page:
            j += 1
        if j > i + 1:
            out += sorted(steps[i:j], key=lambda s: s.identity)
            i = j
        else:
            out.append(steps[i])
            i += 1
    return out


def side(run: RunDir) -> Side:
    steps = _any_order_fills([_keyed(e.step, e.target) for e in essential_steps(run)])
    order = terminal_order(list(run.interceptions))
    return Side(run, steps, task_values(read_task(run.path)), order[0] if order else None)


def _kind(value: Any, values: dict[str, Any]) -> str:
    """A value as the task sees it: `{user.email}` for the task's own value, else its folded text."""
    shown, used = placeholdered(value, values)
    return str(shown) if used else "text:" + text(value)


def _same_value(a: Any, b: Any, sa: Side, sb: Side) -> bool:
    if a is None or b is None:
        return a == b
    return same(a, b)[0] or _kind(a, sa.values) == _kind(b, sb.values)


def _path(sa: Side, sb: Side) -> tuple[float, list[str]]:
    rows: list[Row] = align(sa.steps, sb.steps)
    out = []
    for r in rows:
        if r.status == "same" or (r.status == "value" and r.agent is not None and r.reference is not None
                                  and _same_value(r.agent.value, r.reference.value, sa, sb)):
            continue
        left = r.agent.describe() if r.agent is not None else "(nothing)"
        right = r.reference.describe() if r.reference is not None else "(nothing)"
        out.append(f"{left} | {right}")
    return DECAY ** len(out), out


def _payload(c: Any) -> dict[str, Any]:
    body = c.body
    return {p: v for p, v in fieldpath.leaves(body)} if isinstance(body, (dict, list)) else \
        ({"": body} if body not in (None, "") else {})


def _outcome(sa: Side, sb: Side) -> tuple[float, list[str]]:
    if sa.catch is None and sb.catch is None:
        return 1.0, []
    if sa.catch is None or sb.catch is None:
        return 0.0, ["only one run sent the terminal request"]
    ua, ub = page_key(str(sa.catch.url or ""), sa.run), page_key(str(sb.catch.url or ""), sb.run)
    if (str(sa.catch.method).upper(), ua) != (str(sb.catch.method).upper(), ub):
        return 0.0, [f"terminal request {sa.catch.method} {ua} | {sb.catch.method} {ub}"]
    pa, pb = _payload(sa.catch), _payload(sb.catch)
    paths = [p for p in sorted(set(pa) | set(pb))
             if not volatile.reason(p, pa.get(p, pb.get(p)))]
    if not paths:
        return 1.0, []
    diffs = [f"{p}: {pa.get(p, '(missing)')!r} | {pb.get(p, '(missing)')!r}" for p in paths
             if p not in pa or p not in pb or not _same_value(pa[p], pb[p], sa, sb)]
    return (len(paths) - len(diffs)) / len(paths), diffs


def pair(a: RunDir | Side, b: RunDir | Side) -> Pair:
    """The consistency of two runs (see the module docstring). Symmetric: the pair is read in path order."""
    sa = a if isinstance(a, Side) else side(a)
    sb = b if isinstance(b, Side) else side(b)
    if str(sb.run.path) < str(sa.run.path):
        sa, sb = sb, sa
    path, divergences = _path(sa, sb)
    outcome, diffs = _outcome(sa, sb)
    return Pair(str(sa.run.path), str(sb.run.path), path * outcome, path, outcome, divergences, diffs)


def report(runs: list[str | Path], reference: str | Path | None = None) -> dict[str, Any]:
    """Each run against the reference (when given) and every pair of runs; the mean pairwise score."""
    sides = [side(RunDir(r)) for r in runs]
    pairs = [pair(x, y) for x, y in itertools.combinations(sides, 2)]
    ref = side(RunDir(reference)) if reference is not None else None
    vs_ref = [pair(s, ref) for s in sides] if ref is not None else []
    return {"runs": [str(s.run.path) for s in sides], "reference": str(ref.run.path) if ref is not None else None,
            "method": f"path x outcome; path = {DECAY:.3f} ^ divergent aligned steps; outcome = share of terminal "
                      "payload fields that agree",
            "vs_reference": [p.to_dict() for p in vs_ref],
            "mean_vs_reference": statistics.fmean(p.score for p in vs_ref) if vs_ref else None,
            "pairs": [p.to_dict() for p in pairs],
            "mean_pairwise": statistics.fmean(p.score for p in pairs) if pairs else None,
            "threshold": DEFAULT_THRESHOLD}


def mean_pairwise(runs: list[str | Path]) -> float | None:
    """The mean pairwise consistency of runs (None with fewer than two)."""
    sides = [side(RunDir(r)) for r in runs]
    scores = [pair(x, y).score for x, y in itertools.combinations(sides, 2)]
    return statistics.fmean(scores) if scores else None
