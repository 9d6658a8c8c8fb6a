"""Stopping and resuming through the real CLI. `clawrec bench` stopped halfway by SIGTERM (exit 143), Ctrl-C
(SIGINT, exit 130) or SIGHUP (exit 129) stops its runs, which finalize themselves (none is left `running`); killed by
kill -9, its runs die with it and the next bench finalizes them (status `interrupted`) before running them again.
Each time the same command resumes: no completed run is repeated, the stopped ones run again, the table is complete.
A stop is not an attempt that failed: one run stopped four times completes with `--retries 0`, every stopped
attempt kept and listed, and the summary counts the stopped run only as `stopped`. A changed spec is then
refused."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

from tests.bench.helpers import (DEMO, FAST, REPO, agent_cmd, bench, bench_argv, procs, read, recompute, slot_dirs,
                                 status, summary_cells)


def _wait(pred, timeout: float, what: str, proc: subprocess.Popen | None = None) -> None:
    end = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"bench exited {proc.returncode}: {proc.stderr.read().decode()[-2000:]}")
        time.sleep(0.2)


def _manifest(d: Path) -> dict:
    return read(d / "manifest.json") or {}


def test_stop_sigterm_sigint_sighup_kill_9_then_resume_then_changed_spec(tmp_path):
    spec = tmp_path / "specs" / "travel-flight-oneway.yaml"
    spec.parent.mkdir()
    spec.write_text("".join(line for line in (DEMO / "travel-flight-oneway.yaml").read_text().splitlines(True)
                            if not line.startswith("reference:")))  # a copy without reference: judged on `expect`
    out = tmp_path / "bench"
    agent = agent_cmd("idle,hold")  # trial 1 ends at once; trial 2 is in flight until the bench is stopped
    args = [str(spec.parent), "--agent", "command", "--agent-cmd", agent, "--trials", "2", "-j", "2",
            "--retries", "0", "--out", str(out), *FAST]  # stops never spend --retries
    runs = out / "runs" / "travel-flight-oneway" / "command"
    held = [runs / "trial-2"]

    def halfway(sig: int) -> tuple[subprocess.Popen, str, str]:
        """The same bench command again, `sig` once trial 1 is judged and trial 2 is being recorded."""
        # SIGINT at its default, as in a terminal's foreground job, even when the suite runs as a background job of
        # a non-interactive shell (SIGINT ignored, and an ignored SIGINT stays ignored: nohup's promise)
        proc = subprocess.Popen(bench_argv(*args), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            _wait(lambda: (runs / "trial-1" / "verdict.json").exists() and all(status(d) == "running" for d in held),
                  300, "trial 1 judged and trial 2 running", proc)
        finally:
            proc.send_signal(sig)
            stdout, stderr = proc.communicate(timeout=300)
        return proc, stdout.decode(), stderr.decode()

    def nothing_running() -> None:
        # every run directory, the kept attempts too, has a final status; no run and no agent outlives the bench
        assert not [d for d in runs.iterdir() if d.is_dir() and status(d) in (None, "running")], \
            {d.name: status(d) for d in runs.iterdir()}
        _wait(lambda: not procs(f"--run-dir {runs}") and not procs(agent), 60, "the stopped runs' processes to end")

    # SIGTERM halfway: the bench forwards it to its runs, each finalizes itself; exit 143, the table is written
    proc, stdout, stderr = halfway(signal.SIGTERM)
    assert proc.returncode == 143, stderr[-3000:]
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("clawrec: terminated (SIGTERM): the bench stopped its runs in progress"), stderr[-3000:]
    assert stdout.strip().splitlines()[-1] == str(out) and (out / "summary.json").exists()
    first = _manifest(runs / "trial-1")
    for d in held:
        m = _manifest(d)
        assert (m["status"], m["stop_reason"]) == ("crashed", "terminated (SIGTERM)"), m
        assert json.loads((d / "bench_attempt.json").read_text())["stopped"] == "the bench was stopped"
    nothing_running()
    totals = json.loads((out / "summary.json").read_text())["totals"]
    assert (totals["stopped"], totals["infra"], totals["todo"]) == (1, 0, 0), totals  # counted only as stopped
    assert [json.loads(line)["outcome"] for line in (out / "results.jsonl").read_text().splitlines()] == \
        ["fail", "stopped"]

    # Ctrl-C (SIGINT) on the resumed bench: the same shape, exit 130
    proc, _, stderr = halfway(signal.SIGINT)
    assert proc.returncode == 130 and "1 already final, 1 to do" in stderr, stderr[-3000:]
    assert stderr.strip().splitlines()[-1].startswith("clawrec: interrupted: the bench stopped its runs")
    assert all((status(d), _manifest(d)["stop_reason"]) == ("crashed", "interrupted") for d in held)
    nothing_running()

    # SIGHUP (the terminal closed): the same, exit 129
    proc, _, stderr = halfway(signal.SIGHUP)
    assert proc.returncode == 129 and "1 already final, 1 to do" in stderr, stderr[-3000:]
    assert all((status(d), _manifest(d)["stop_reason"]) == ("crashed", "terminated (SIGHUP)") for d in held)
    nothing_running()

    # kill -9: the runs die with the bench (PDEATHSIG) and stay `running` until the next bench finalizes them
    proc, _, _ = halfway(signal.SIGKILL)
    assert proc.returncode == -signal.SIGKILL
    _wait(lambda: not procs(f"--run-dir {runs}"), 60, "the killed bench's runs to end")
    assert all(status(d) == "running" for d in held)

    again = bench(*args)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "1 already final, 1 to do" in again.stderr
    assert "1 run(s) left `running` by a killed bench finalized (status interrupted)" in again.stderr
    assert _manifest(runs / "trial-1")["id"] == first["id"]  # never repeated
    dirs = slot_dirs(out)
    assert [d.name for d in dirs] == ["trial-1", "trial-2"] and all(status(d) == "ok" for d in dirs)
    for d in held:  # every stopped attempt kept aside for forensics, each finalized, the 5th attempt completed
        assert [_manifest(d.with_name(f"{d.name}.attempt-{n}")).get("stop_reason", "")[:20] for n in (1, 2, 3, 4)] \
            == ["terminated (SIGTERM)", "interrupted", "terminated (SIGHUP)", "clawrec was killed b"]
        assert status(d.with_name(f"{d.name}.attempt-4")) == "interrupted"
        assert [json.loads((d.with_name(f"{d.name}.attempt-{n}") / "bench_attempt.json").read_text())["stopped"]
                for n in (1, 4)] == ["the bench was stopped", "the bench was killed before the run ended"]
        assert json.loads((d / "bench_attempt.json").read_text())["attempt"] == 5
    nothing_running()
    assert summary_cells(out) == recompute(out) and recompute(out)["command"]["overall"]["stage1"] == (0, 2)
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [(r["attempts"], r["stopped_attempts"]) for r in rows] == [(1, 0), (5, 4)]
    assert all(r["outcome"] == "fail" for r in rows)
    assert json.loads((out / "summary.json").read_text())["totals"]["stopped"] == 0

    # a changed spec on resume: one clear line, exit 2, nothing touched
    spec.write_text(spec.read_text().replace("time_s: 900", "time_s: 901"))
    refused = bench(*args)
    assert refused.returncode == 2
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"clawrec: {out / 'bench.json'}: spec {spec} changed") \
        and "--replan" in lines[0], refused.stderr
    assert bench(str(out)).returncode == 2  # resuming from the folder alone checks the pinned specs too
