"""The verdict (verdict.json): one shape for every judge, its validation, and its writer.

A verdict is only useful when it can be checked, so every condition carries evidence pointers into the run
directories ({run: agent|reference, file, line or seq}). `SUBMISSION_SCHEMA` is the part a model writes (it is the
`submit_verdict` tool's input schema); the judge adds the rest (judge, runs, usage, notes).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rundir import records as R
from evaluator.errors import VerdictError

VERDICT_VERSION = 1
VERDICTS = ("PASS", "FAIL")
JUDGES = ("payload", "llm", "both", "rubric", "state", "progress")
RUNS = ("agent", "reference")

EVIDENCE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "run": {"type": "string", "enum": list(RUNS)},
        "file": {"type": "string", "description": "a file of that run: interceptions.jsonl, actions.jsonl, "
                 "http.jsonl, agent.jsonl, screenshots/screenshots.jsonl, screenshots/NNNNNN.jpg, manifest.json"},
        "line": {"type": "integer", "minimum": 1, "description": "1-based line of a JSONL file"},
        "seq": {"type": "integer", "description": "action or screenshot seq (instead of line)"},
        "field": {"type": "string", "description": "payload field path, when relevant"},
    },
    "required": ["run", "file"],
}

SUBMISSION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": list(VERDICTS)},
        "conditions": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "condition": {"type": "string"},
                    "met": {"type": "boolean"},
                    "evidence": {"type": "array", "items": EVIDENCE_SCHEMA, "minItems": 1},
                },
                "required": ["condition", "met", "evidence"],
            },
        },
        "divergence": {
            "type": ["object", "null"],
            "description": "first step where the agent run departs from the reference in a way that matters; "
                           "null when it does not",
            "properties": {"step": {"type": ["integer", "null"]}, "agent": {"type": "string"},
                           "reference": {"type": "string"}},
        },
        "justification": {"type": "string"},
    },
    "required": ["verdict", "conditions", "justification"],
}


@dataclass
class Evidence:
    run: str
    file: str
    line: int | None = None
    seq: int | None = None
    field: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}

    def __str__(self) -> str:
        where = f":{self.line}" if self.line is not None else (f"#seq{self.seq}" if self.seq is not None else "")
        return f"{self.run}:{self.file}{where}"


@dataclass
class Condition:
    condition: str
    met: bool
    evidence: list[Evidence] = field(default_factory=list)
    detail: str | None = None
    # Where a judged payload field came from (specs with `writes:`, evaluator/writes_judge.py): {write (None: the
    # final request), rule, field, step, request: {file, line, id, method, url, t, status}}.
    source: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"condition": self.condition, "met": self.met,
                             "evidence": [e.to_dict() for e in self.evidence]}
        if self.detail:
            d["detail"] = self.detail
        if self.source is not None:
            d["source"] = self.source
        return d


@dataclass
class Verdict:
    verdict: str
    judge: str
    conditions: list[Condition] = field(default_factory=list)
    justification: str = ""
    divergence: dict[str, Any] | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    skipped_fields: list[dict[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    run: str | None = None
    reference: str | None = None
    task_id: str | None = None
    spec_sha256: str | None = None
    model: str | None = None
    judges: dict[str, Any] = field(default_factory=dict)
    progress: float | None = None          # the progress judge's partial credit (subgoals reached / total)
    writes: list[dict[str, Any]] = field(default_factory=list)  # the spec's writes as the site held them

    @property
    def passed(self) -> bool:
        return self.verdict == "PASS"

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "version": VERDICT_VERSION, "verdict": self.verdict, "judge": self.judge,
            "run": self.run, "reference": self.reference, "task_id": self.task_id, "spec_sha256": self.spec_sha256,
            "conditions": [c.to_dict() for c in self.conditions], "divergence": self.divergence,
            "justification": self.justification, "usage": self.usage, "skipped_fields": self.skipped_fields,
            "notes": self.notes, "model": self.model,
            "judged_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        if self.judges:
            d["judges"] = self.judges
        if self.progress is not None:
            d["progress"] = self.progress
        if self.writes:
            d["writes"] = self.writes
        return d

    def one_line(self) -> str:
        """The line `clawrec judge` prints: verdict, judge, the first failed condition, tokens when a model ran."""
        bits = [f"{self.verdict} ({self.judge})"]
        failed = [c for c in self.conditions if not c.met]
        if failed:
            bits.append(f"failed: {failed[0].condition}" + (f" ({failed[0].detail})" if failed[0].detail else ""))
            if len(failed) > 1:
                bits[-1] += f" and {len(failed) - 1} more"
        if self.usage.get("input_tokens") is not None:
            cost = self.usage.get("cost_usd")
            bits.append(f"{self.usage['input_tokens']} input tokens" + (f", ${cost:.4f}" if cost is not None else "")
                        + (" (cached)" if self.usage.get("cached") else ""))
        if self.notes:
            bits.append(f"{len(self.notes)} note(s)")
        return " — ".join(bits)


def evidence_from(d: dict[str, Any]) -> Evidence:
    return Evidence(run=d["run"], file=d["file"], line=d.get("line"), seq=d.get("seq"), field=d.get("field"))


def check_submission(obj: Any) -> list[str]:
    """Problems with a model's submit_verdict input (empty = well formed). Messages are meant for the model."""
    if not isinstance(obj, dict):
        return ["the input must be an object"]
    probs: list[str] = []
    if obj.get("verdict") not in VERDICTS:
        probs.append(f"verdict must be PASS or FAIL, got {obj.get('verdict')!r}")
    if not isinstance(obj.get("justification"), str) or not obj.get("justification", "").strip():
        probs.append("justification must be a non-empty string")
    conds = obj.get("conditions")
    if not isinstance(conds, list) or not conds:
        probs.append("conditions must be a non-empty list")
        conds = []
    for i, c in enumerate(conds):
        where = f"conditions[{i}]"
        if not isinstance(c, dict):
            probs.append(f"{where} must be an object")
            continue
        if not isinstance(c.get("condition"), str) or not c["condition"].strip():
            probs.append(f"{where}.condition must be a non-empty string")
        if not isinstance(c.get("met"), bool):
            probs.append(f"{where}.met must be true or false")
        ev = c.get("evidence")
        if not isinstance(ev, list) or not ev:
            probs.append(f"{where}.evidence must be a non-empty list")
            continue
        for j, e in enumerate(ev):
            probs += _check_evidence_shape(e, f"{where}.evidence[{j}]")
    if isinstance(conds, list) and conds and obj.get("verdict") == "PASS" and any(
            isinstance(c, dict) and c.get("met") is False for c in conds):
        probs.append("verdict is PASS but a condition is not met")
    div = obj.get("divergence")
    if div is not None and not isinstance(div, dict):
        probs.append("divergence must be an object or null")
    return probs


def _check_evidence_shape(e: Any, where: str) -> list[str]:
    if not isinstance(e, dict):
        return [f"{where} must be an object {{run, file, line|seq}}"]
    probs = []
    if e.get("run") not in RUNS:
        probs.append(f"{where}.run must be agent or reference")
    if not isinstance(e.get("file"), str) or not e.get("file"):
        probs.append(f"{where}.file must be a file name")
    for k in ("line", "seq"):
        if k in e and e[k] is not None and (not isinstance(e[k], int) or isinstance(e[k], bool)):
            probs.append(f"{where}.{k} must be an integer")
    return probs


def check_verdict(obj: Any) -> list[str]:
    """Problems with a whole verdict.json object (empty = valid)."""
    if not isinstance(obj, dict):
        return ["verdict.json must hold an object"]
    probs = check_submission({**obj, "conditions": obj.get("conditions") or [{"condition": "-", "met": True,
                                                                               "evidence": [{"run": "agent",
                                                                                             "file": "-"}]}]})
    if obj.get("judge") not in JUDGES:
        probs.append(f"judge must be one of {', '.join(JUDGES)}")
    if obj.get("version") != VERDICT_VERSION:
        probs.append(f"version must be {VERDICT_VERSION}")
    for k in ("usage",):
        if not isinstance(obj.get(k), dict):
            probs.append(f"{k} must be an object")
    for k in ("skipped_fields", "notes"):
        if not isinstance(obj.get(k), list):
            probs.append(f"{k} must be a list")
    return probs


def write_verdict(run_dir: str | Path, verdict: Verdict) -> Path:
    """Validate and write RUN/verdict.json atomically (a crash never leaves half a verdict)."""
    data = verdict.to_dict()
    probs = check_verdict(data)
    if probs:
        raise VerdictError(f"invalid verdict for {run_dir}: " + "; ".join(probs))
    path = Path(run_dir) / R.VERDICT
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def read_verdict(path: str | Path) -> dict[str, Any]:
    """Read and validate a verdict.json (or the verdict.json of a run directory)."""
    p = Path(path)
    if p.is_dir():
        p = p / R.VERDICT
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise VerdictError(f"{p}: cannot read verdict ({exc})") from None
    probs = check_verdict(data)
    if probs:
        raise VerdictError(f"{p}: " + "; ".join(probs))
    return data
