"""manifest.json, the one builder: every field is named here once, writers (the recorder, the pipeline's early
failures, crash recovery) build it with these functions and readers get it through `read` (upgraded to the current
format). Writes are atomic (temp file + rename), so a reader never sees half a manifest.

Format history (mitmproxy-style: each old version is upgraded by one small step):
- 1: the task's spec path was `task.spec` or a top-level `spec_path`/`task.spec_path`/`task.path`, its hash
  `task.spec_sha256` or `task.sha256` or a top-level `spec_sha256`, its id `task.id` or a top-level `task_id`.
- 2: one place for each: `task.id`, `task.spec` (path), `task.spec_sha256`, `task.start_url`.
"""

from __future__ import annotations

import json
import os
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from rundir.records import MANIFEST

FORMAT_VERSION = 2
# `running` is written at start; the rest end a run. `interrupted`: the process was killed and a later reader
# finalized the run directory (see recorder.manifest.recover).
FINAL_STATUSES = ("ok", "intercepted", "timeout", "agent_error", "crashed", "interrupted")
STATUSES = ("running",) + FINAL_STATUSES


def clawrec_version() -> str:
    try:
        return metadata.version("clawrec")
    except metadata.PackageNotFoundError:
        return ""


def new(run_id: str, *, task_id: str | None, spec_sha256: str | None, agent: Any, t0: float,
        spec: str | None = None, start_url: str | None = None, flags: dict[str, Any] | None = None,
        **extra: Any) -> dict[str, Any]:
    """The manifest of a run that starts now (status `running`)."""
    task = {"id": task_id, "spec_sha256": spec_sha256}
    if spec is not None:
        task["spec"] = spec
    if start_url is not None:
        task["start_url"] = start_url
    return {"format_version": FORMAT_VERSION, "id": run_id, "task": task, "agent": agent,
            "versions": {"clawrec": clawrec_version()}, "flags": dict(flags or {}), "t0": t0,
            "t0_iso": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t0)), "status": "running", "stop_reason": "",
            **extra}


def ended(base: dict[str, Any], status: str, stop_reason: str, *, layers: dict[str, Any],
          end: float | None = None) -> dict[str, Any]:
    """`base` completed with the final status, stop reason, end time, duration and layers."""
    if status not in FINAL_STATUSES:
        raise ValueError(f"status must be one of {', '.join(FINAL_STATUSES)}, not {status!r}")
    end = time.time() if end is None else end
    return {**base, "status": status, "stop_reason": stop_reason, "ended": end,
            "duration": round(end - float(base.get("t0", end)), 3), "layers": layers}


def write(run_dir: str | Path, data: dict[str, Any]) -> Path:
    run_dir = Path(run_dir)
    target = run_dir / MANIFEST
    tmp = run_dir / f".{MANIFEST}.{os.getpid()}.tmp"
    try:
        tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def read(run_dir: str | Path) -> dict[str, Any]:
    """The manifest upgraded to the current format; {} when missing or unreadable."""
    try:
        data = json.loads((Path(run_dir) / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return upgrade(data) if isinstance(data, dict) else {}


def upgrade(data: dict[str, Any]) -> dict[str, Any]:
    """An older manifest in the current format (unknown fields kept; a newer one is returned as it is)."""
    version = data.get("format_version")
    if isinstance(version, int) and version >= FORMAT_VERSION:
        return data
    return _v1_to_v2(data)


def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    out = dict(data)
    task = dict(out["task"]) if isinstance(out.get("task"), dict) else {}
    for key, aliases in (("id", (task.get("id"), out.pop("task_id", None))),
                         ("spec", (task.get("spec"), task.pop("spec_path", None), task.pop("path", None),
                                   out.pop("spec_path", None))),
                         ("spec_sha256", (task.get("spec_sha256"), task.pop("sha256", None),
                                          out.pop("spec_sha256", None)))):
        value = next((a for a in aliases if a), None)
        if value is not None:
            task[key] = value
    if task or "task" in data:
        out["task"] = task
    out["format_version"] = FORMAT_VERSION
    return out
