"""No agent outlives its run: the bench kills whatever a run left behind, found by the bench's mark in its environment.

Why a mark and not a process group: an agent runs in its own group (clawrec/agents/procgroup.py), and a shell killed
by PDEATHSIG leaves its children to init, out of any tree the bench could walk. Every process a run starts inherits
the run's environment, so `CLAWREC_BENCH_DIR` (the bench folder) and `CLAWREC_BENCH_SLOT` (the slot) name exactly
the processes of one run of this bench: nothing else carries them. The bench reaps a slot when its child has ended
(deadline kill, a SIGSTOPped `clawrec run`, a stop) and reaps the whole folder when it starts (a bench kill -9'd
before: the run's own fail-closed watchdog is the first line, this the second). Only our user's processes are
readable; SIGKILL, since what is left has no run to finalize for.
"""

from __future__ import annotations

import os
import signal
import time

DIR_VAR = "CLAWREC_BENCH_DIR"
SLOT_VAR = "CLAWREC_BENCH_SLOT"
ROUNDS = 20  # a process forking while we scan is caught by the next round


def _environ(pid: str) -> dict[bytes, bytes] | None:
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            raw = fh.read()
    except OSError:
        return None
    out = {}
    for item in raw.split(b"\0"):
        key, sep, value = item.partition(b"=")
        if sep:
            out[key] = value
    return out


def marked(root: str, slot: str | None = None) -> list[int]:
    """PIDs (not this process) whose environment says they belong to bench `root` (and `slot`, when given)."""
    want_dir, want_slot = root.encode(), slot.encode() if slot is not None else None
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        env = _environ(entry)
        if not env or env.get(DIR_VAR.encode()) != want_dir:
            continue
        if want_slot is None or env.get(SLOT_VAR.encode()) == want_slot:
            found.append(int(entry))
    return found


def reap(root: str, slot: str | None = None) -> int:
    """SIGKILL every live process of bench `root` (one slot, or all); the number killed."""
    killed: set[int] = set()
    for _ in range(ROUNDS):
        pids = [p for p in marked(root, slot) if not _zombie(p)]
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except OSError:
                pass
        time.sleep(0.05)
    return len(killed)


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (OSError, IndexError):
        return True
