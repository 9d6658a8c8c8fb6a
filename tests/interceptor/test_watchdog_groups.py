"""The fail-closed watchdog kills an agent's process group even when the group's leader (a shell PDEATHSIG killed
and init reaped first) is gone while its members live on; a reused id (no member started after the leader) is left
alone. The files and directories it was told of (an agent's task file, OpenClaw's private state) are gone when it
ends, disarmed or not."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from interceptor import watchdog


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def test_group_without_its_leader_is_killed():
    sh = subprocess.Popen(["/bin/sh", "-c", "sleep 60 & echo $!; wait"], stdout=subprocess.PIPE, text=True,
                          start_new_session=True)
    member = int(sh.stdout.readline())
    started = watchdog.start_time(sh.pid)
    try:
        os.kill(sh.pid, signal.SIGKILL)
        sh.wait()
        assert _state(member) not in ("Z", "X", "gone")  # alive: S, R, or D (paging in under load)
        watchdog.kill_group(sh.pid, started)
        end = time.monotonic() + 10
        while _state(member) not in ("Z", "gone"):
            assert time.monotonic() < end, "the group's member survived"
            time.sleep(0.05)
    finally:
        if _state(member) not in ("Z", "gone"):
            os.kill(member, signal.SIGKILL)
        sh.stdout.close()


def test_group_id_without_a_younger_member_is_left_alone():
    sh = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        watchdog.kill_group(sh.pid, str(int(watchdog.start_time(sh.pid)) + 10**6))  # "started" after it: not ours
        time.sleep(0.2)
        assert sh.poll() is None
    finally:
        sh.kill()
        sh.wait()


def test_named_file_and_directory_are_removed_when_it_ends(tmp_path):
    private = tmp_path / "clawrec-openclaw-x"
    (private / "state" / "agents").mkdir(parents=True)
    (private / "state" / "agents" / "t.sqlite").write_text("password in clear")
    (private / "prompt.txt").write_text("password in clear")
    task = tmp_path / "task.json"
    task.write_text("{}")
    outside = tmp_path / "kept"
    outside.mkdir()
    (private / "link").symlink_to(outside)  # a link inside is removed, never followed
    sleeper = subprocess.Popen(["sleep", "60"], start_new_session=True)  # stands for the browser: disarmed, lives
    try:
        wd = subprocess.Popen([sys.executable, "-I", "-S", watchdog.__file__, str(sleeper.pid),
                               watchdog.start_time(sleeper.pid)], stdin=subprocess.PIPE)
        wd.communicate(f"file {private}\nfile {task}\ndisarm\n".encode(), timeout=60)
        assert wd.returncode == 0 and sleeper.poll() is None
        assert not private.exists() and not task.exists() and outside.is_dir()
    finally:
        sleeper.kill()
        sleeper.wait()
