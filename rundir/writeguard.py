"""One run's write health: the first write that fails (disk full, quota, I/O error) stops the run.

Why fail closed: a run that goes on unrecorded is worthless and may even leak (nothing would show what was sent).
Every JsonlWriter of a run shares one guard; the first failure is kept (`error`, one line for the user), every
writer stops writing (records from then on are dropped and counted, files end on a whole line), and the space
reserved at the start (`reserve`) is given back so the run can still be finalized: manifest, http.har, trimmed
tails. The pipeline watches `error` and ends the run (status crashed, exit 1).
"""

from __future__ import annotations

import errno
import os
import shutil
import threading
from pathlib import Path

RESERVE = ".clawrec.reserve"
RESERVE_BYTES = 2 << 20        # freed on the first failed write: room for the manifest and http.har
LOW_SPACE_BYTES = 512 << 20    # below this much free space a run is warned (video + screenshots need ~100–500 MB)


def describe(exc: OSError) -> str:
    if exc.errno == errno.ENOSPC:
        return "no space left on device"
    if exc.errno == errno.EDQUOT:
        return "disk quota exceeded"
    return (exc.strerror or str(exc)).lower()


class WriteGuard:
    def __init__(self, run_dir: str | Path) -> None:
        self.run_dir = Path(run_dir)
        self.error: str | None = None
        self._lock = threading.Lock()
        self._reserved = False

    def reserve(self, nbytes: int = RESERVE_BYTES) -> None:
        """Set `nbytes` aside in the run directory (real blocks, not a sparse file), freed by the first failure."""
        path = self.run_dir / RESERVE
        try:
            with open(path, "wb") as fh:
                chunk = b"\0" * (1 << 16)
                for _ in range(max(1, nbytes // len(chunk))):
                    fh.write(chunk)
            self._reserved = True
        except OSError:
            path.unlink(missing_ok=True)

    def fail(self, path: str | Path, exc: OSError) -> None:
        """Record the first failed write and free the reserve (idempotent)."""
        with self._lock:
            if self.error is not None:
                return
            try:
                name = Path(path).resolve().relative_to(self.run_dir.resolve())
            except ValueError:
                name = Path(path)
            self.error = f"run directory {self.run_dir}: {describe(exc)} (writing {name})"
        self.release()

    def release(self) -> None:
        if self._reserved:
            self._reserved = False
            (self.run_dir / RESERVE).unlink(missing_ok=True)


def low_space_warning(run_dir: str | Path, threshold: int = LOW_SPACE_BYTES) -> str | None:
    """One warning line when the run directory's file system has less than `threshold` bytes free."""
    try:
        free = shutil.disk_usage(run_dir).free
    except OSError:
        return None
    if free >= threshold:
        return None
    return (f"warning: only {free / 2**20:.0f} MB free for {run_dir} (a run with video needs about 100–500 MB); "
            "the run stops if the disk fills up")


def cleanup_tmp(folder: str | Path) -> None:
    """Remove empty `*.tmp` files a failed write left (never a non-empty one: it may be someone's data)."""
    for tmp in Path(folder).glob("*.tmp"):
        try:
            if tmp.is_file() and tmp.stat().st_size == 0:
                os.unlink(tmp)
        except OSError:
            pass
