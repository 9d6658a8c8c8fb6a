"""A full disk stops the run, fail closed and finalized (through the real CLI, on a 4 MB tmpfs): one
`clawrec: run directory …: no space left on device …` line, exit 1, the run directory the last stdout line, the
manifest `crashed` with the reason, every JSONL file ending on a whole line, no empty temp file left."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.pipeline.helpers import jsonl, manifest, spawn_cli
from tests.pipeline.tinysite import TinySite, write_spec

AGENT = Path(__file__).resolve().parent / "agent_scripts" / "post_storm.py"


@pytest.fixture
def small_disk(tmp_path):
    if os.geteuid() != 0:
        pytest.fail("this test mounts a 4 MB tmpfs: run it as root (as `make test` does in CI)")
    mnt = tmp_path / "disk"
    mnt.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mnt)], check=True)
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_full_disk_stops_the_run_with_one_line(tmp_path, small_disk):
    run_dir = small_disk / "run"
    with TinySite() as site:
        spec = write_spec(tmp_path, site)
        proc = spawn_cli([str(spec), "--agent", "command", "--agent-cmd", f"{sys.executable} {AGENT}",
                          "--headless", "--time-limit", "1800", "--run-dir", str(run_dir)])
        out, err = proc.communicate(timeout=900)
    lines = err.strip().splitlines()
    assert proc.returncode == 1, err
    assert "Traceback" not in err and "Exception" not in err, err
    assert lines[-1].startswith(f"clawrec: run directory {run_dir}: no space left on device (writing "), lines
    assert sum(ln.startswith("clawrec: run directory") for ln in lines) == 1, lines
    assert out.strip().splitlines()[-1] == str(run_dir)
    m = manifest(run_dir)
    assert m["status"] == "crashed" and "no space left on device" in m["stop_reason"], m["stop_reason"]
    assert m["duration"] < 900  # stopped at the failure, not at the time limit
    for name in ("http.jsonl", "actions.jsonl", "agent.jsonl", "interceptions.jsonl"):
        if (run_dir / name).exists():
            data = (run_dir / name).read_bytes()
            assert not data or data.endswith(b"\n"), name
            jsonl(run_dir, name)  # every line parses
    assert len(jsonl(run_dir, "http.jsonl")) > 5
    assert [p.name for p in run_dir.rglob("*.tmp") if p.stat().st_size == 0] == []
    assert not (run_dir / ".clawrec.reserve").exists() and not (run_dir / ".clawrec.lock").exists()
