"""Where did the agent leave the reference's path, and which of those places made it fail?

Both runs' actions are reduced to steps (evaluator/steps.py) and aligned; every aligned row carries both runs'
step numbers (evaluator/trajectory.py: the one numbering the report, the CLI and diagnosis.json share) with the action
seq beside them. The failure category and its cause come from evaluator/failure.py; the divergence that explains
the cause comes first, harmless ones (a skipped filter that changed nothing) after it.

Why difflib.SequenceMatcher (Ratcliff/Obershelp) and not an edit-distance DP: it anchors on the longest run of
identical steps and recurses on both sides, so long shared stretches stay aligned and a detour shows up as one
block (replace/insert/delete) at the place it happened; an optimal-edit DP may instead scatter common steps
("click Continue") across a detour to save one edit, which moves the reported divergence. Runs have at most a few
hundred steps, so its quadratic worst case is irrelevant; it is stdlib and deterministic.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

from taskspec.model import Spec
from evaluator.dom_diagnosis import dom_findings
from evaluator.errors import RunDirError
from evaluator.failure import CATEGORIES, Cause, classify, final_claim
from evaluator.normalize import same
from evaluator.payload_judge import judge_payload
from evaluator.steps import Step, steps
from evaluator.trajectory import Trajectory
from rundir.reader import RunDir, Screenshot

__all__ = ["DIAGNOSIS", "Diagnosis", "Row", "align", "check_layers", "diagnose", "nearest_screenshot", "steps"]

DIAGNOSIS = "diagnosis.json"
DIAGNOSIS_VERSION = 2
STATUS_WORDS = {"same": "same", "value": "same step, other value", "differs": "a different action",
                "extra": "an extra action", "missing": "missing (a reference step the agent did not take)"}


@dataclass
class Row:
    """One aligned pair: status same | value (same step, other value) | differs | extra (agent only) |
    missing (reference only)."""

    status: str
    agent: Step | None
    reference: Step | None
    agent_step: int | None = None
    reference_step: int | None = None

    def to_dict(self, index: int) -> dict[str, Any]:
        return {"row": index, "status": self.status, "agent_step": self.agent_step,
                "reference_step": self.reference_step, "agent": self.agent.to_dict() if self.agent else None,
                "reference": self.reference.to_dict() if self.reference else None}


def _values_same(a: Any, b: Any) -> bool:
    return same(a, b)[0] if a is not None and b is not None else a == b


def align(agent: list[Step], reference: list[Step]) -> list[Row]:
    """Aligned rows, in run order (see the module docstring for why SequenceMatcher)."""
    sm = SequenceMatcher(None, [s.key for s in reference], [s.key for s in agent], autojunk=False)
    rows: list[Row] = []
    for op, r0, r1, a0, a1 in sm.get_opcodes():
        if op == "equal":
            for r, a in zip(reference[r0:r1], agent[a0:a1]):
                rows.append(Row("same" if _values_same(a.value, r.value) else "value", a, r))
            continue
        refs, ags = reference[r0:r1], agent[a0:a1]
        paired = min(len(refs), len(ags)) if op == "replace" else 0
        rows += [Row("differs", a, r) for r, a in zip(refs[:paired], ags[:paired])]
        rows += [Row("missing", None, r) for r in refs[paired:]]
        rows += [Row("extra", a, None) for a in ags[paired:]]
    return rows


def nearest_screenshot(run: RunDir, t: float | None) -> str | None:
    """Path (relative to the run) of the screenshot on disk nearest in time to `t`."""
    if t is None:
        return None
    best: tuple[float, Screenshot] | None = None
    for shot in run.screenshots:
        if shot.t is None or run.screenshot_file(shot) is None:
            continue
        if best is None or abs(shot.t - t) < best[0]:
            best = (abs(shot.t - t), shot)
    if best is None:
        return None
    return os.path.relpath(run.screenshot_file(best[1]), run.path.resolve())


def check_layers(run: RunDir, who: str) -> list[str]:
    """A corrupt line inside a layer is an error (file:line); a cut last line (a crash) is only a note."""
    notes = []
    for layer in (run.actions, run.screenshots, run.interceptions, run.http, run.agent):
        for bad in layer.bad_lines:
            where = f"{run.path / layer.file}:{bad}"
            if bad != layer.n_lines:
                raise RunDirError(f"{where}: corrupt JSONL line ({who} run)")
            notes.append(f"{who}: {layer.file} line {bad} is cut (crashed run?); ignored")
    return notes


@dataclass
class Diagnosis:
    run: str
    reference: str | None               # None: no reference run (category from the verdict and the run, no alignment)
    rows: list[Row]
    first: int | None                   # index of the relevant divergence's row (the one the cause names)
    divergence: dict[str, Any] | None
    divergences: list[dict[str, Any]]
    payload: dict[str, Any]
    counts: dict[str, int]
    similarity: float | None
    cause: Cause
    self_report_gap: dict[str, Any] | None
    notes: list[str] = field(default_factory=list)
    dom: list[dict[str, Any]] = field(default_factory=list)  # what the page shows (evaluator/dom_diagnosis.py)

    @property
    def category(self) -> str | None:
        return self.cause.category

    def headline(self) -> str:
        """The first line a person reads: category and cause (or that nothing failed)."""
        gap = "; SELF-REPORT GAP: the agent claims success but never submitted" if self.self_report_gap else ""
        if self.cause.category is None:
            return f"passed: {self.cause.summary}{gap}"
        page = f"; the page: {self.dom[0]['summary']}" if self.dom else ""
        return f"{CATEGORIES[self.cause.category]}: {self.cause.summary}{gap}{page}"

    def to_dict(self) -> dict[str, Any]:
        return {"version": DIAGNOSIS_VERSION, "run": self.run, "reference": self.reference,
                "category": self.cause.category, "category_label": CATEGORIES.get(self.cause.category or ""),
                "headline": self.headline(), "cause": self.cause.to_dict(), "self_report_gap": self.self_report_gap,
                "method": "difflib.SequenceMatcher over normalized action keys (type, target)",
                "numbering": "step = the run's step number (report row); seq = the action's seq in actions.jsonl",
                "steps": self.counts, "similarity": None if self.similarity is None else round(self.similarity, 3),
                "first_divergence": self.divergence,
                "divergences": self.divergences, "payload": self.payload,
                "aligned": [r.to_dict(i) for i, r in enumerate(self.rows, 1)], "notes": self.notes, "dom": self.dom}


def _side_time(rows: list[Row], i: int, side: str) -> float | None:
    """Time of the step on `side` at row i, else of its nearest neighbour on that side (for extra/missing rows)."""
    for j in [i, *[k for d in range(1, len(rows)) for k in (i - d, i + d)]]:
        if 0 <= j < len(rows) and (s := getattr(rows[j], side)) is not None:
            return s.t
    return None


def _divergence(run: RunDir, ref: RunDir, rows: list[Row], i: int, relevant: bool) -> dict[str, Any]:
    row = rows[i]
    a_t, r_t = _side_time(rows, i, "agent"), _side_time(rows, i, "reference")
    a, r = row.agent, row.reference
    if row.agent_step is not None:
        where = f"step {row.agent_step}" + (f" (seq {a.seq})" if a and a.seq is not None else "")
    else:
        nxt = next((r.agent_step for r in rows[i + 1:] if r.agent_step is not None), None)
        where = f"before step {nxt}" if nxt is not None else "after the agent's last step"
    summary = (f"{where}: {STATUS_WORDS[row.status]}: agent {a.describe() if a else '(nothing)'} vs reference "
               f"step {row.reference_step}: {r.describe() if r else '(nothing)'}" if r else
               f"{where}: {STATUS_WORDS[row.status]}: agent {a.describe() if a else '(nothing)'}")
    return {"step": row.agent_step, "reference_step": row.reference_step, "seq": a.seq if a else None,
            "row": i + 1, "status": row.status, "relevant": relevant, "summary": summary,
            "agent": a.to_dict() if a else None, "reference": r.to_dict() if r else None,
            "agent_screenshot": nearest_screenshot(run, a_t), "reference_screenshot": nearest_screenshot(ref, r_t),
            "agent_url": a.url if a else None, "reference_url": r.url if r else None, "agent_t": a_t,
            "reference_t": r_t}


def _relevant_row(rows: list[Row], cause: Cause) -> int | None:
    """The row that explains the failure: the cause's step; for a missing submission the first reference step the
    agent never took after its last one; else the first divergence."""
    if cause.action is not None:
        hit = next((i for i, r in enumerate(rows) if r.agent is cause.action), None)
        if hit is not None and rows[hit].status != "same":
            return hit
        if hit is not None and cause.category not in ("never_submitted", "limit"):
            return hit
    if cause.category in ("never_submitted", "limit", "stuck_looping", "off_task", "verification_wall"):
        last = max((i for i, r in enumerate(rows) if r.agent is not None), default=-1)
        nxt = next((i for i in range(last + 1, len(rows)) if rows[i].status != "same"), None)
        if nxt is not None:
            return nxt
    return next((i for i, r in enumerate(rows) if r.status != "same"), None) if cause.category else None


def diagnose(run: str | Path | RunDir, reference: str | Path | RunDir | None, spec: Spec | None = None,
             write: bool = True) -> Diagnosis:
    """Align RUN with REFERENCE, classify the failure; write RUN/diagnosis.json (unless write=False). Without a
    reference (a bench task whose spec names none) nothing is aligned: the category comes from the verdict and the
    run alone."""
    rd = run if isinstance(run, RunDir) else RunDir(run)
    ref = reference if isinstance(reference, RunDir) or reference is None else RunDir(reference)
    if ref is not None and rd.path.resolve() == ref.path.resolve():
        raise RunDirError(f"{rd.path}: is its own reference")
    notes = check_layers(rd, "agent") + (check_layers(ref, "reference") if ref is not None else
                                         ["no reference run: nothing aligned; the category comes from the verdict "
                                          "and the run"])
    for who, r in (("agent", rd), ("reference", ref)):
        if r is not None and not r.actions.present:
            notes.append(f"{who}: no {r.actions.file}: no browser actions to align")
    tr, rtr = Trajectory(rd), Trajectory(ref) if ref is not None else None
    a_steps, r_steps = tr.meaningful, rtr.meaningful if rtr is not None else []
    rows = align(a_steps, r_steps) if rtr is not None else []
    for row in rows:
        row.agent_step, row.reference_step = tr.number_of(row.agent), rtr.number_of(row.reference)
    verdict = judge_payload(rd, spec, ref)
    cause = classify(tr, rtr, verdict, rows)
    claim = final_claim(rd)
    gap = ({"claimed": claim[0], "agent_line": claim[1], "summary": "the agent's last word claims success, but no "
            "terminal request was sent"} if claim is not None and not rd.interceptions.records else None)
    first = _relevant_row(rows, cause)
    order = ([first] if first is not None else []) + [i for i, r in enumerate(rows) if r.status != "same"
                                                      and i != first]
    divergences = [_divergence(rd, ref, rows, i, i == first) for i in order] if ref is not None else []
    sm_ratio = SequenceMatcher(None, [s.key for s in r_steps], [s.key for s in a_steps],
                               autojunk=False).ratio() if ref is not None else None
    diffs = [{"condition": c.condition, "detail": c.detail} for c in verdict.conditions if not c.met]
    diag = Diagnosis(
        run=str(rd.path.resolve()), reference=str(ref.path.resolve()) if ref is not None else None, rows=rows,
        first=first, divergence=divergences[0] if divergences else None, divergences=divergences,
        payload={"verdict": verdict.verdict, "justification": verdict.justification, "differences": diffs,
                 "agent_caught": len(rd.interceptions),
                 "reference_caught": len(ref.interceptions) if ref is not None else None},
        counts={"agent": len(a_steps), "reference": len(r_steps), "agent_run_steps": len(tr.steps),
                "reference_run_steps": len(rtr.steps) if rtr is not None else 0, "agent_actions": len(rd.actions),
                "reference_actions": len(ref.actions) if ref is not None else 0,
                **{s: sum(1 for r in rows if r.status == s) for s in ("same", "value", "differs", "extra",
                                                                       "missing")}},
        similarity=sm_ratio, cause=cause, self_report_gap=gap, notes=notes + tr.console_notes,
        dom=dom_findings(tr) if cause.category else [])
    if write:
        tmp = rd.path / (DIAGNOSIS + ".tmp")
        tmp.write_text(json.dumps(diag.to_dict(), indent=1, ensure_ascii=False, default=str), encoding="utf-8")
        os.replace(tmp, rd.path / DIAGNOSIS)
    return diag
