"""rundir/lock.py: one writer per run directory; a lock whose holder died (kill -9) is stale and is taken over."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rundir.lock import LOCK, RunDirLocked, RunLock, process_start, state


def test_second_claim_is_refused_until_released(tmp_path):
    first = RunLock(tmp_path).acquire()
    assert state(tmp_path) == "live"
    with pytest.raises(RunDirLocked, match=r"in use by another clawrec run \(pid \d+, since"):
        RunLock(tmp_path).acquire()
    first.release()
    assert state(tmp_path) == "none" and not (tmp_path / LOCK).exists()
    with RunLock(tmp_path):
        assert state(tmp_path) == "live"


def test_lock_of_a_killed_holder_is_stale_and_taken_over(tmp_path):
    code = ("import sys, time; from rundir.lock import RunLock; RunLock(sys.argv[1]).acquire(); "
            "print('held', flush=True); time.sleep(60)")
    child = subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "held"
        assert state(tmp_path) == "live"
        with pytest.raises(RunDirLocked):
            RunLock(tmp_path).acquire()
    finally:
        child.kill()
        child.wait()
    assert (tmp_path / LOCK).exists() and state(tmp_path) == "stale"
    with RunLock(tmp_path) as lock:
        assert json.loads(lock.path.read_text())["pid"] != child.pid


def test_reused_pid_is_not_the_holder(tmp_path):
    """Same PID, other start time (the PID was reused by another process): stale."""
    import os
    (tmp_path / LOCK).write_text(json.dumps({"pid": os.getpid(), "start": "1", "since": 0}))
    assert process_start(os.getpid()) != "1" and state(tmp_path) == "stale"
    RunLock(tmp_path).acquire().release()
