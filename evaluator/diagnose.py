"""Where did the agent leave the reference's path? Align the two runs' browser actions and name the first step
that differs, with the screenshot nearest in time on each side, plus the caught payload's differences.

Actions are first reduced to steps a person would name (click, fill, submit, navigate, press Enter, switch tab):
focus, single keystrokes, page loads and clicks on containers are noise, and a field's input/change events collapse
into one `fill` with its final value. Each step gets a key (type, target identity; URL path for navigations)
WITHOUT its value, so a wrong value still aligns with the reference's step and is reported as a value difference.

Why difflib.SequenceMatcher (Ratcliff/Obershelp) and not an edit-distance DP: it anchors on the longest run of
identical steps and recurses on both sides, so long shared stretches stay aligned and a detour shows up as one
block (replace/insert/delete) at the place it happened; an optimal-edit DP may instead scatter common steps
("click Continue") across a detour to save one edit, which moves the reported divergence. Runs have at most a few
hundred steps, so its quadratic worst case is irrelevant; it is stdlib and deterministic.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

from taskspec.model import Spec
from evaluator.errors import RunDirError
from evaluator.normalize import same, text
from evaluator.payload_judge import canonical_url, judge_payload
from rundir.reader import Action, RunDir, Screenshot

DIAGNOSIS = "diagnosis.json"
DIAGNOSIS_VERSION = 1
NOISE = {"focus", "blur", "keyup", "keypress", "load", "scroll", "mousemove", "mouseover", "hover", "pointerdown",
         "pointerup", "mousedown", "mouseup", "wheel", "visibility", "resize", "selectionchange", "dom_content_loaded"}
FILL = {"input", "change"}
CONTAINERS = {"form", "body", "html", "main", "section", "fieldset"}


@dataclass
class Step:
    """One meaningful action of a run."""

    seq: int | None
    t: float | None
    line: int
    type: str
    target: str           # how a person would name it: role "name" (or tag#id, or selector)
    identity: str         # the alignment key's target part (normalized)
    value: Any = None
    url: str | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.type, self.identity)

    def describe(self) -> str:
        shown = "" if self.value is None else f" = {json.dumps(self.value, ensure_ascii=False)[:80]}"
        return f"{self.type} {self.target}{shown}"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("identity")
        d["text"] = self.describe()
        return d


def _target(a: Action) -> tuple[str, str]:
    """(label, identity) of an action's target descriptor {tag, id, role, name, text, selector}."""
    t = a.target if isinstance(a.target, dict) else {}
    tag, ident, role = t.get("tag") or "", t.get("id"), t.get("role") or t.get("tag") or ""
    name = " ".join(str(t.get("name") or t.get("text") or "").split())[:60]
    if ident and (tag in CONTAINERS or not name or len(name) > 40):
        label = f"{tag}#{ident}"
    else:
        label = f'{role} "{name}"' if name else str(t.get("selector") or tag or "?")
    identity = f"#{ident}" if ident else (f"{role}|{text(name)}" if name else str(t.get("selector") or tag))
    return label, identity


def _nav_key(url: str, run: RunDir) -> str:
    """A navigation's URL without query and fragment, local site ports replaced by `{sites.NAME}`."""
    return canonical_url(url, run).split("#", 1)[0].split("?", 1)[0]


def steps(run: RunDir) -> list[Step]:
    """The run's actions reduced to meaningful steps (see the module docstring)."""
    out: list[Step] = []
    for a in run.actions:
        kind = a.type
        if kind in NOISE or (kind == "keydown" and a.key != "Enter"):
            continue
        if kind == "navigate" and str(a.url or "").startswith(("about:", "chrome:", "chrome-extension:", "data:")):
            continue  # a fresh tab's blank page, the browser's own pages: not a step anyone took
        if kind in ("navigate", "tab_switch"):
            where = _nav_key(a.url, run) if a.url else f"tab {a.tab}"
            out.append(Step(a.seq, a.t, a.line, kind, where, where, None, a.url))
            continue
        label, identity = _target(a)
        value = "[masked]" if a.raw.get("masked") else a.value
        if kind in FILL:
            prev = out[-1] if out else None
            if prev is not None and prev.type == "fill" and prev.identity == identity:
                prev.value = value  # the field's final value
                continue
            out.append(Step(a.seq, a.t, a.line, "fill", label, identity, value, a.url))
            continue
        if kind == "click" and (a.target or {}).get("tag") in CONTAINERS:
            continue
        if kind == "keydown":
            kind = "press Enter in"
        out.append(Step(a.seq, a.t, a.line, kind, label, identity, None, a.url))
    return out


@dataclass
class Row:
    """One aligned pair: status same | value (same step, other value) | differs | extra (agent only) |
    missing (reference only)."""

    status: str
    agent: Step | None
    reference: Step | None

    def to_dict(self, index: int) -> dict[str, Any]:
        return {"row": index, "status": self.status, "agent": self.agent.to_dict() if self.agent else None,
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
    reference: str
    rows: list[Row]
    first: int | None
    divergence: dict[str, Any] | None
    payload: dict[str, Any]
    counts: dict[str, int]
    similarity: float
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"version": DIAGNOSIS_VERSION, "run": self.run, "reference": self.reference,
                "method": "difflib.SequenceMatcher over normalized action keys (type, target)",
                "steps": self.counts, "similarity": round(self.similarity, 3), "first_divergence": self.divergence,
                "payload": self.payload, "aligned": [r.to_dict(i) for i, r in enumerate(self.rows, 1)],
                "notes": self.notes}


def _side_time(rows: list[Row], i: int, side: str) -> float | None:
    """Time of the step on `side` at row i, else of its nearest neighbour on that side (for extra/missing rows)."""
    for j in [i, *[k for d in range(1, len(rows)) for k in (i - d, i + d)]]:
        if 0 <= j < len(rows) and (s := getattr(rows[j], side)) is not None:
            return s.t
    return None


def _divergence(run: RunDir, ref: RunDir, rows: list[Row], i: int) -> dict[str, Any]:
    row = rows[i]
    a_t, r_t = _side_time(rows, i, "agent"), _side_time(rows, i, "reference")
    a, r = row.agent, row.reference
    what = {"value": "same step, different value", "differs": "a different action", "extra": "an extra action",
            "missing": "skipped a reference action"}[row.status]
    summary = (f"step {i + 1}: {what}: agent {a.describe() if a else '(nothing)'} vs reference "
               f"{r.describe() if r else '(nothing)'}")
    return {"step": i + 1, "status": row.status, "summary": summary, "agent": a.to_dict() if a else None,
            "reference": r.to_dict() if r else None, "agent_screenshot": nearest_screenshot(run, a_t),
            "reference_screenshot": nearest_screenshot(ref, r_t), "agent_url": a.url if a else None,
            "reference_url": r.url if r else None, "agent_t": a_t, "reference_t": r_t}


def _payload(run: RunDir, ref: RunDir, spec: Spec | None) -> dict[str, Any]:
    v = judge_payload(run, spec, ref)
    diffs = [{"condition": c.condition, "detail": c.detail} for c in v.conditions if not c.met]
    return {"verdict": v.verdict, "justification": v.justification, "differences": diffs,
            "agent_caught": len(run.interceptions), "reference_caught": len(ref.interceptions)}


def diagnose(run: str | Path | RunDir, reference: str | Path | RunDir, spec: Spec | None = None,
             write: bool = True) -> Diagnosis:
    """Align RUN with REFERENCE; write RUN/diagnosis.json (unless write=False)."""
    rd = run if isinstance(run, RunDir) else RunDir(run)
    ref = reference if isinstance(reference, RunDir) else RunDir(reference)
    if rd.path.resolve() == ref.path.resolve():
        raise RunDirError(f"{rd.path}: is its own reference")
    notes = check_layers(rd, "agent") + check_layers(ref, "reference")
    for who, r in (("agent", rd), ("reference", ref)):
        if not r.actions.present:
            notes.append(f"{who}: no {r.actions.file}: no browser actions to align")
    a_steps, r_steps = steps(rd), steps(ref)
    rows = align(a_steps, r_steps)
    first = next((i for i, row in enumerate(rows) if row.status != "same"), None)
    sm_ratio = SequenceMatcher(None, [s.key for s in r_steps], [s.key for s in a_steps], autojunk=False).ratio()
    diag = Diagnosis(
        run=str(rd.path.resolve()), reference=str(ref.path.resolve()), rows=rows, first=first,
        divergence=_divergence(rd, ref, rows, first) if first is not None else None,
        payload=_payload(rd, ref, spec),
        counts={"agent": len(a_steps), "reference": len(r_steps), "agent_actions": len(rd.actions),
                "reference_actions": len(ref.actions),
                **{s: sum(1 for r in rows if r.status == s) for s in ("same", "value", "differs", "extra",
                                                                       "missing")}},
        similarity=sm_ratio, notes=notes)
    if write:
        tmp = rd.path / (DIAGNOSIS + ".tmp")
        tmp.write_text(json.dumps(diag.to_dict(), indent=1, ensure_ascii=False, default=str), encoding="utf-8")
        os.replace(tmp, rd.path / DIAGNOSIS)
    return diag
