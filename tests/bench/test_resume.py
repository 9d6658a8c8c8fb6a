"""Resume through the real CLI: `kill -9` of `clawrec bench` halfway, then the same command again — completed runs
are not repeated, the interrupted one is retried, the table is complete. A changed spec is then refused."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

from tests.bench.helpers import DEMO, FAST, REPO, agent_cmd, bench, bench_argv, recompute, slot_dirs, summary_cells


def _wait(pred, timeout: float, what: str, proc: subprocess.Popen | None = None) -> None:
    end = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"bench exited {proc.returncode}: {proc.stderr.read().decode()[-2000:]}")
        time.sleep(0.2)


def _status(d) -> str | None:
    try:
        return json.loads((d / "manifest.json").read_text()).get("status")
    except (OSError, ValueError):
        return None


def test_kill_9_halfway_then_resume_then_changed_spec(tmp_path):
    spec = tmp_path / "specs" / "travel-flight-oneway.yaml"
    spec.parent.mkdir()
    spec.write_text("".join(line for line in (DEMO / "travel-flight-oneway.yaml").read_text().splitlines(True)
                            if not line.startswith("reference:")))  # a copy without reference: judged on `expect`
    out = tmp_path / "bench"
    args = [str(spec.parent), "--agent", "command", "--agent-cmd", agent_cmd("sleep"), "--trials", "3", "-j", "1",
            "--out", str(out), *FAST]
    proc = subprocess.Popen(bench_argv(*args), cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    runs = out / "runs" / "travel-flight-oneway" / "command"
    try:
        _wait(lambda: _status(runs / "trial-1") == "ok" and _status(runs / "trial-2") == "running", 180,
              "trial 1 finished and trial 2 running", proc)
        first = json.loads((runs / "trial-1" / "manifest.json").read_text())
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    # the killed bench's run died with it (PDEATHSIG): its manifest stays `running`, no process writes there
    _wait(lambda: not any(f"--run-dir {runs / 'trial-2'}" in _cmdline(p) for p in os.listdir("/proc") if p.isdigit()),
          30, "the killed bench's run to end")
    assert _status(runs / "trial-2") == "running"

    again = bench(*args)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "1 already final, 2 to do" in again.stderr
    assert json.loads((runs / "trial-1" / "manifest.json").read_text())["id"] == first["id"]  # not repeated
    dirs = slot_dirs(out)
    assert [d.name for d in dirs] == ["trial-1", "trial-2", "trial-3"]
    assert all(_status(d) == "ok" for d in dirs)
    kept = sorted(p.name for p in runs.iterdir() if ".attempt-" in p.name)
    assert kept == ["trial-2.attempt-1"]  # the interrupted attempt, kept aside for forensics
    assert json.loads((runs / "trial-2" / "bench_attempt.json").read_text())["attempt"] == 2
    assert summary_cells(out) == recompute(out) and recompute(out)["command"]["overall"]["stage1"] == (0, 3)
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [r["attempts"] for r in rows] == [1, 2, 1] and all(r["outcome"] == "fail" for r in rows)

    # a changed spec on resume: one clear line, exit 2, nothing touched
    spec.write_text(spec.read_text().replace("time_s: 900", "time_s: 901"))
    refused = bench(*args)
    assert refused.returncode == 2
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"clawrec: {out / 'bench.json'}: spec {spec} changed") \
        and "--replan" in lines[0], refused.stderr
    assert bench(str(out)).returncode == 2  # resuming from the folder alone checks the pinned specs too


def _cmdline(pid: str) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""
