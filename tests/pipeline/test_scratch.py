"""A run's temporary files (the task file with the user's details, the recorder's folder, the profile, the served
sites') live in one folder per `clawrec run` process; a run killed by SIGKILL leaves it, and the next run removes it
(issue 36: a soak with faults left hundreds of clawrec-* folders and task files in /tmp). Real runs, real Chromium."""

from __future__ import annotations

import os
import signal
import sys
import tempfile
from pathlib import Path

from clawrec.scratch import PREFIX
from tests.pipeline.helpers import manifest, spawn_cli
from tests.pipeline.tinysite import TinySite, write_spec
from tests.record.helpers import StderrLines


def test_a_killed_runs_temporary_files_are_swept_by_the_next_run(tmp_path):
    tmp = Path(tempfile.gettempdir())
    with TinySite() as site:
        spec = write_spec(tmp_path, site)
        proc = spawn_cli([str(spec), "--agent", "command", "--agent-cmd", "sleep 60", "--headless", "--no-video",
                          "--run-dir", str(tmp_path / "killed")])
        StderrLines(proc).wait(r"command agent started")
        [scratch] = list(tmp.glob(f"{PREFIX}{proc.pid}-*"))
        task_files = list(scratch.glob("clawrec-task-*.json"))
        assert task_files and list(scratch.glob("clawrec-rec-*")), sorted(p.name for p in scratch.iterdir())
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
        assert scratch.is_dir(), "nothing can remove it before the next run"
        second = spawn_cli([str(spec), "--agent", "command", "--agent-cmd", f"{sys.executable} -c pass",
                            "--headless", "--no-video", "--no-judge", "--run-dir", str(tmp_path / "next")])
        out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    assert not scratch.exists(), "the next run did not sweep the killed run's temporary folder"
    assert not list(tmp.glob(f"{PREFIX}{second.pid}-*")), "a finished run left its own folder"
    assert manifest(tmp_path / "next")["status"] == "ok"
