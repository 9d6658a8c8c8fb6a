"""results.jsonl: one row per planned run, rebuilt from the run directories (the single source of truth).

Why rebuilt and not appended: a resumed or re-judged bench must not leave stale rows; the rows are a pure function
of the plan and what is on disk, so `clawrec bench report DIR` gives the same table as the bench that wrote it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from clawrec.bench.judging import DIAGNOSIS_FILE
from clawrec.bench.plan import Plan
from clawrec.bench.state import SlotState, read_json, read_slot

RESULTS_FILE = "results.jsonl"


def outcome(st: SlotState) -> str:
    """pass | fail | judge_inconclusive | unjudged | infra | stopped | bad_input | todo: what the row counts as."""
    if st.kind != "done":
        return st.kind
    j = st.judge_state
    return {"PASS": "pass", "FAIL": "fail"}.get(j, j)


def _usage(manifest: dict[str, Any]) -> dict[str, Any]:
    result = manifest.get("agent_result") if isinstance(manifest.get("agent_result"), dict) else {}
    usage = result.get("usage") if isinstance(result.get("usage"), dict) else {}
    return usage


def diagnosis(st: SlotState) -> tuple[str | None, bool | None]:
    """(failure_category, self_report_gap) from RUN/diagnosis.json; (None, None) when the run has none."""
    d = read_json(st.path / DIAGNOSIS_FILE) if st.kind == "done" else None
    if d is None or "category" not in d:
        return None, None
    return (d["category"] if isinstance(d["category"], str) else None), bool(d.get("self_report_gap"))


_STEPS: dict[tuple[str, int], int | None] = {}  # (run dir, manifest mtime) -> steps: rows are rebuilt often


def steps(st: SlotState) -> int | None:
    """The run's steps as its viewer lists them (evaluator/trajectory.py), not the agent's own count (a command
    agent reports none). None when the run cannot be read."""
    if st.kind != "done":
        return None
    try:
        key = (str(st.path), (st.path / "manifest.json").stat().st_mtime_ns)
    except OSError:
        return None
    if key not in _STEPS:
        from evaluator.trajectory import Trajectory
        from rundir.reader import RunDir

        try:
            _STEPS[key] = len(Trajectory(RunDir(st.path)).steps)
        except Exception:  # a run the viewer cannot read has no step count; its row still stands
            _STEPS[key] = None
    return _STEPS[key]


def layers_failed(manifest: dict[str, Any]) -> dict[str, str]:
    """Layers the run went on without ({"video": "ffmpeg killed by SIGKILL"}): a PASS with no video is not a clean
    run, and the row and the summary say so (the verdict stands: the judges read the other layers)."""
    layers = manifest.get("layers") if isinstance(manifest.get("layers"), dict) else {}
    return {name: str(entry["failed"]) for name, entry in sorted(layers.items())
            if isinstance(entry, dict) and entry.get("failed")}


def row(root: Path, st: SlotState) -> dict[str, Any]:
    m = st.manifest
    usage = _usage(m)
    result = m.get("agent_result") if isinstance(m.get("agent_result"), dict) else {}
    judge_usage = (st.verdict or {}).get("usage") or {}
    duration = m.get("duration") if isinstance(m.get("duration"), (int, float)) else None
    tokens = None
    if usage.get("input_tokens") is not None or usage.get("output_tokens") is not None:
        tokens = {"input": usage.get("input_tokens"), "output": usage.get("output_tokens")}
    category, gap = diagnosis(st)
    out = outcome(st)
    if out == "fail" and category == "verification_wall":
        out = "wall"  # counted apart, out of the agent's denominators (evaluator/walls.py)
    return {
        "task": st.slot.spec.id, "category": st.slot.spec.category, "agent": st.slot.agent.name,
        "model": st.slot.agent.model, "label": st.slot.agent.label, "trial": st.slot.trial,
        "attempts": st.failed_attempts + st.stopped_attempts + (0 if st.kind == "todo" else 1),
        "stopped_attempts": st.stopped_attempts + (st.kind == "stopped"),
        "status": m.get("status") if st.kind != "todo" else None,
        "stop_reason": st.reason if st.kind != "done" else m.get("stop_reason"),
        "intercepted": m.get("status") == "intercepted" if st.kind == "done" else None,
        "verdict": st.judge_state if st.kind == "done" else None,
        "judge": (st.verdict or st.judge_error or {}).get("judge"),
        "judge_error": (st.judge_error or {}).get("error"),
        "outcome": out, "infra": st.kind == "infra",
        "duration": duration, "steps": steps(st), "tokens": tokens,
        "requests": usage.get("requests"), "cost_usd": usage.get("cost_usd"),
        "judge_cost_usd": judge_usage.get("cost_usd"),
        "failure_category": category, "self_report_gap": gap,
        "layers_failed": layers_failed(m) if st.kind != "todo" else {},
        "run_dir": os.path.relpath(st.path, root),
    }


def collect(root: Path, plan: Plan) -> list[dict[str, Any]]:
    return [row(root, read_slot(root, s)) for s in plan.slots()]


def write_results(root: Path, rows: list[dict[str, Any]]) -> Path:
    path = root / RESULTS_FILE
    tmp = root / f".{RESULTS_FILE}.tmp"
    tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    os.replace(tmp, path)
    return path
