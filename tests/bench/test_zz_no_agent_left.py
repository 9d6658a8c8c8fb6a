"""Runs last among the bench tests (pytest takes a folder's files in name order): after every bench above (runs
killed at their deadline while SIGSTOPped, benches stopped by SIGTERM/SIGINT, a bench kill -9'd, Ray tasks stopped),
no process of the test agent script is alive. A real agent left alive would keep spending model tokens."""

from __future__ import annotations

import time

from tests.bench.helpers import AGENT, cmdline, procs


def _alive(pid: str) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return False


def test_no_agent_outlives_its_run():
    end = time.monotonic() + 10  # a SIGKILL just sent is delivered at once; 10 s is for a loaded machine's scheduler
    while (left := [p for p in procs(str(AGENT)) if _alive(p)]) and time.monotonic() < end:
        time.sleep(0.2)
    assert not left, {p: cmdline(p) for p in left}
