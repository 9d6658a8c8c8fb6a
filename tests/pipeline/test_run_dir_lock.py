"""Run directories are claimed atomically (rundir/lock.py), through the real CLI: two `clawrec run --run-dir SAME`
started together never both write (one wins, the other is refused with one line, exit 2); a directory held by a
live run is refused; the lock is gone when the run ends."""

from __future__ import annotations

import json
from pathlib import Path

from rundir.lock import LOCK, RunLock
from tests.pipeline.helpers import jsonl, manifest, run_cli, spawn_cli
from tests.pipeline.tinysite import TinySite, write_spec


def test_two_runs_into_one_directory_one_wins(tmp_path):
    run_dir = tmp_path / "same"
    with TinySite() as site:
        spec = write_spec(tmp_path, site)
        args = [str(spec), "--agent", "command", "--agent-cmd", "true", "--headless", "--run-dir", str(run_dir)]
        procs = [spawn_cli(args), spawn_cli(args)]
        results = [(p.wait(timeout=120), *p.communicate()) for p in procs]
    codes = sorted(code for code, _out, _err in results)
    assert codes == [0, 2], results
    loser = next(err for code, _out, err in results if code == 2).strip().splitlines()
    assert len(loser) == 1 and loser[0].startswith(f"clawrec: --run-dir {run_dir}: "), loser
    assert "in use by another clawrec run" in loser[0] or "already exists and is not empty" in loser[0]
    m = manifest(run_dir)
    assert m["status"] == "ok" and len(jsonl(run_dir, "agent.jsonl")) >= 1
    assert not (run_dir / LOCK).exists()  # released at the end
    assert json.loads((run_dir / "task.json").read_text())["id"] == "tiny-signup"


def test_directory_held_by_a_live_run_is_refused(tmp_path, capsys):
    run_dir = tmp_path / "held"
    run_dir.mkdir()
    with TinySite() as site, RunLock(run_dir):  # this test process is the live holder
        code, out, err = run_cli([str(write_spec(tmp_path, site)), "--agent", "command", "--agent-cmd", "true",
                                  "--headless", "--run-dir", str(run_dir)], capsys)
    assert code == 2 and out == [] and len(err) == 1
    assert err[0].startswith(f"clawrec: --run-dir {run_dir}: in use by another clawrec run (pid "), err
    assert [p.name for p in run_dir.iterdir()] == []  # the holder's lock released, nothing written
