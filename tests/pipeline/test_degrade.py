"""Degrade instead of abort, through the real CLI: ffmpeg killed mid-run marks the video layer failed and the agent
finishes its task (exit 0); a browser killed during `--grace` ends the run at once, not when the grace ends."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from tests.pipeline.helpers import jsonl, manifest, signup_cmd, spawn_cli
from tests.pipeline.tinysite import TinySite, write_spec
from tests.support.wait import wait_for


def _child(parent: int, comm: str, timeout: float = 60) -> int:
    """The PID of `parent`'s child process named `comm` (read from /proc)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                text = stat.read_text()
            except OSError:
                continue
            name = text[text.index("(") + 1:text.rindex(")")]
            if name == comm and int(text.rsplit(")", 1)[1].split()[1]) == parent:
                return int(stat.parent.name)
        time.sleep(0.1)
    raise AssertionError(f"no child {comm} of {parent}")


def test_losing_ffmpeg_marks_the_video_failed_and_the_run_goes_on(tmp_path):
    run_dir, go = tmp_path / "run", tmp_path / "go"
    with TinySite() as site:
        spec = write_spec(tmp_path, site)
        cmd = f"while [ ! -e {go} ]; do sleep 0.1; done; {signup_cmd()}"
        proc = spawn_cli([str(spec), "--agent", "command", "--agent-cmd", cmd, "--run-dir", str(run_dir)])
        try:
            wait_for(lambda: list((run_dir / ".video-segments").glob("*.ts")), "a video segment", 60)
            agent_log = run_dir / "agent.jsonl"
            wait_for(lambda: agent_log.exists() and agent_log.stat().st_size > 0, "the agent's start", 60)
            os.kill(_child(proc.pid, "ffmpeg"), signal.SIGKILL)
            time.sleep(1.0)  # the recorder notices (0.25 s watch) while the agent still waits
            go.touch()
            out, err = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert proc.returncode == 0, err
    m = manifest(run_dir)
    assert m["status"] == "intercepted", m["stop_reason"]
    assert m["layers"]["video"]["failed"] == "ffmpeg killed by SIGKILL"
    assert m["layers"]["video"]["duration"] > 0  # what was recorded before is kept
    assert len(jsonl(run_dir, "interceptions.jsonl")) == 1 and site.posts("/api/signup") == []


def test_browser_death_during_grace_ends_the_run_at_once(tmp_path):
    run_dir = tmp_path / "run"
    with TinySite() as site:
        spec = write_spec(tmp_path, site)
        proc = spawn_cli([str(spec), "--agent", "command", "--agent-cmd", signup_cmd("--linger", "120"),
                          "--headless", "--grace", "120", "--run-dir", str(run_dir)])
        try:
            wait_for(lambda: (run_dir / "interceptions.jsonl").exists()
                     and (run_dir / "interceptions.jsonl").stat().st_size > 0, "the catch", 90)
            os.kill(_child(proc.pid, "chromium"), signal.SIGKILL)
            killed = time.monotonic()
            out, err = proc.communicate(timeout=60)
            ended = time.monotonic() - killed
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert ended < 20, ended  # the grace was 120 s
    assert proc.returncode == 1, err
    m = manifest(run_dir)
    assert m["status"] == "crashed" and "Chromium killed by SIGKILL" in m["stop_reason"]
    assert m["stop_t"] - jsonl(run_dir, "interceptions.jsonl")[0]["t"] < 20
