"""A run's folder: --run-dir as given (new or empty), else RUNS_DIR/<task id>/<UTC time>-<agent>-<random>.

Why a lock at once: two `clawrec run` processes given the same --run-dir must not both write into it; the claim
(rundir/lock.py) refuses the second with exit 2 before anything starts.
"""

from __future__ import annotations

import secrets
import time
from pathlib import Path
from typing import Any

from clawrec.errors import UsageError


def claim_run_dir(run_dir: Path | None, runs_dir: Path, task_id: str, agent: str) -> tuple[Path, Any]:
    """Make and claim the run's folder; returns it (resolved) and its held lock (a second writer: UsageError)."""
    from rundir.lock import LOCK, RunDirLocked, RunLock

    if run_dir is not None:
        path = Path(run_dir)
        if path.exists() and any(p.name != LOCK for p in path.iterdir()):
            raise UsageError(f"{{opt}} {path}: already exists and is not empty", option="run_dir")
        path.mkdir(parents=True, exist_ok=True)
    else:
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        path = runs_dir / task_id / f"{stamp}-{agent}-{secrets.token_hex(3)}"
        path.mkdir(parents=True, exist_ok=False)
    try:
        lock = RunLock(path.resolve()).acquire()
    except RunDirLocked as exc:
        raise UsageError(f"{{opt}} {path}: {exc}", option="run_dir") from None
    if any(p.name != lock.path.name for p in path.iterdir()):  # another run came and went before our claim
        lock.release()
        raise UsageError(f"{{opt}} {path}: already exists and is not empty", option="run_dir")
    return path.resolve(), lock
