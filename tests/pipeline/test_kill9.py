"""kill -9 of `clawrec run`, through the real CLI and Chromium: the agent (a grandchild of clawrec, in its own
process group) dies with the browser and its task file (secrets in clear) is removed (fail-closed watchdog), and the
next `clawrec judge` finalizes the run (status interrupted, video joined from its segments, manifest counts and
hashes) and refuses to judge it unless --allow-incomplete."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from rundir.lock import LOCK
from tests.pipeline.helpers import REPO, jsonl, manifest, signup_cmd, spawn_cli
from tests.pipeline.tinysite import TinySite, write_spec
from tests.support.wait import wait_for


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _clawrec(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "clawrec.cli", *args], capture_output=True, text=True, cwd=REPO,
                          timeout=120)


def test_kill_9_leaves_no_agent_and_the_next_judge_finalizes_and_refuses(tmp_path):
    pid_file, task_note = tmp_path / "agent.pgid", tmp_path / "task-file-path"
    run_dir = tmp_path / "run"
    with TinySite() as site:
        spec = write_spec(tmp_path, site)
        # `sh` forks (not exec): the agent's `sleep` is clawrec's grandchild, which PDEATHSIG never reaches, and
        # unlike a Playwright script it does not end when the browser goes.
        cmd = (f"echo $$ > {pid_file}; echo $CLAWREC_TASK > {task_note}; {signup_cmd()}; "
               f"touch {tmp_path / 'lingering'}; sleep 120")
        proc = spawn_cli([str(spec), "--agent", "command", "--agent-cmd", cmd, "--grace", "120",
                          "--run-dir", str(run_dir)])
        try:
            wait_for(lambda: (run_dir / "interceptions.jsonl").exists()
                     and (run_dir / "interceptions.jsonl").stat().st_size > 0, "the catch", 90)
            wait_for(lambda: (tmp_path / "lingering").exists(), "the agent to linger", 60)
            wait_for(lambda: list((run_dir / ".video-segments").glob("*.ts")), "a video segment", 30)
            task_file = Path(task_note.read_text().strip())
            assert task_file.is_file() and "alex@example.com" in task_file.read_text()  # the agent's task, in clear
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.communicate(timeout=30)
        pgid = int(pid_file.read_text())
        try:
            wait_for(lambda: not _group_alive(pgid), "the agent's process group to die", 15)
        finally:
            if _group_alive(pgid):  # an orphan agent (the failure): ours to end
                os.killpg(pgid, signal.SIGKILL)
        try:  # the task file (secrets in clear) does not outlive clawrec: the watchdog removes it
            wait_for(lambda: not task_file.exists(), "the agent's task file to be removed", 15)
        finally:
            task_file.unlink(missing_ok=True)
    assert manifest(run_dir)["status"] == "running" and (run_dir / LOCK).exists()

    refused = _clawrec("judge", str(run_dir))
    assert refused.returncode == 1 and refused.stdout == "", refused
    assert refused.stderr.strip().splitlines() == [
        f"clawrec: {run_dir}: the run did not finish (status interrupted: its clawrec process was killed; "
        "finalized); pass --allow-incomplete to judge what it recorded"]
    m = manifest(run_dir)
    assert m["status"] == "interrupted" and "killed" in m["stop_reason"], m
    assert "video joined from segments" in m["recovered"]["notes"], m["recovered"]
    assert m["layers"]["video"]["duration"] > 0 and not (run_dir / ".video-segments").exists()
    assert m["layers"]["interceptions"]["count"] == len(jsonl(run_dir, "interceptions.jsonl")) >= 1
    assert len(m["layers"]["actions"]["sha256"]) == 64 and not (run_dir / LOCK).exists()

    judged = _clawrec("judge", str(run_dir), "--allow-incomplete")
    assert judged.returncode == 0 and judged.stdout.startswith(f"{run_dir}: PASS"), judged
    assert json.loads((run_dir / "verdict.json").read_text())["verdict"] == "PASS"
