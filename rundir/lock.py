"""One writer per run directory: `RUN/.clawrec.lock`, created with O_EXCL and held (flock) for the whole run.

Why both: O_EXCL makes the claim atomic (two `clawrec run --run-dir SAME` can never both get it); the file names its
holder (PID + the process's start time, so a reused PID is not mistaken for it) for the refusal message and for
readers that must tell a live run from one whose process died (kill -9 leaves the file behind: stale). Breaking a
stale lock happens under flock on the old file, which its live holder always holds, so a live lock is never broken.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LOCK = ".clawrec.lock"


class RunDirLocked(Exception):
    """The run directory is held by a live clawrec process (the message names it)."""


def process_start(pid: int) -> str | None:
    """Field 22 of /proc/PID/stat (clock ticks since boot), or None when there is no such process."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def holder(run_dir: str | Path) -> dict[str, Any] | None:
    """What the lock file says ({pid, start, since}), or None when there is none (or it cannot be read)."""
    try:
        data = json.loads((Path(run_dir) / LOCK).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def alive(info: dict[str, Any] | None) -> bool:
    """The lock's holder is still the process that took it (same PID, same start time)."""
    if not info or not isinstance(info.get("pid"), int):
        return False
    return process_start(info["pid"]) == info.get("start")


def state(run_dir: str | Path) -> str:
    """`none` (no lock file), `live` (its holder runs) or `stale` (its holder died without releasing it)."""
    path = Path(run_dir) / LOCK
    if not path.exists():
        return "none"
    info = holder(run_dir)
    if info is None:  # being written this very moment, or garbage: ask the flock
        return "stale" if _flock_free(path) else "live"
    return "live" if alive(info) else "stale"


@dataclass
class RunLock:
    """`acquire()` claims the directory (raises RunDirLocked), `release()` gives it back (idempotent)."""

    run_dir: Path
    _fd: int | None = None

    @property
    def path(self) -> Path:
        return Path(self.run_dir) / LOCK

    def acquire(self) -> "RunLock":
        for _attempt in range(2):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                if not self._break_stale():
                    info = holder(self.run_dir) or {}
                    since = time.strftime("%H:%M:%S UTC", time.gmtime(info["since"])) \
                        if isinstance(info.get("since"), (int, float)) else "now"
                    raise RunDirLocked(f"in use by another clawrec run (pid {info.get('pid', '?')}, since {since})") \
                        from None
                continue
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a new inode nobody else has open: never blocks
            pid = os.getpid()
            os.write(fd, json.dumps({"pid": pid, "start": process_start(pid), "since": time.time()}).encode())
            os.fsync(fd)
            self._fd = fd
            return self
        raise RunDirLocked("in use by another clawrec run (it claimed the directory just now)")

    def _break_stale(self) -> bool:
        """Remove a lock whose holder died; False when it is live (or another process is breaking it)."""
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return True  # released meanwhile: try again
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False  # its holder (or another breaker) has it
            if alive(holder(self.run_dir)):
                return False
            try:
                if os.stat(self.path).st_ino == os.fstat(fd).st_ino:
                    os.unlink(self.path)
            except FileNotFoundError:
                pass
            return True
        finally:
            os.close(fd)

    def release(self) -> None:
        if self._fd is None:
            return
        try:
            self.path.unlink(missing_ok=True)
        finally:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> "RunLock":
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def _flock_free(path: Path) -> bool:
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
