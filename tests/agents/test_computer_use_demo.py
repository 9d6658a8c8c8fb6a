"""`clawrec bench specs/demo --agent computer-use -j 2`: the computer-use agent (screenshots of each run's Xvfb,
xdotool input) completes the demo's jobs task and its popup share (all five: `make bench BENCH=agents`) against one scripted Anthropic server, which tells the runs apart by the
task in their conversation (tests/support/cu_demo.py). Every run's terminal request is caught, the payload judge
says PASS, and the résumé went through Chromium's GTK file chooser typed into by xdotool (no CDP file handle).
The wrong script is tests/agents/test_computer_use.py's (judged FAIL). ~1-2 minutes."""

from __future__ import annotations

import json
import os
import time

from tests.bench.helpers import DEMO, bench
from tests.support.cu_demo import demo_script, dispatch
from tests.support.demo_bench import TEST_TASKS as TASKS
from tests.support.model_server import ModelServer

MODEL = "cu-demo"


def test_computer_use_completes_demo_tasks(tmp_path):
    out = tmp_path / "bench"
    scripts = {(MODEL, task): demo_script(task, run_dir=out / "runs" / task / f"computer-use_anthropic_{MODEL}"
                                          / "trial-1") for task in TASKS}
    started = time.monotonic()
    try:
        with ModelServer(dispatch(scripts)) as model:
            proc = bench(str(DEMO), "--agent", "computer-use", "--model", f"anthropic/{MODEL}", "-j", "2",
                         "--no-video", "--serve-sites", "--quiet", *(a for t in TASKS for a in ("--ids", t)), "--judge", "payload", "--out", str(out),
                         env={"ANTHROPIC_API_KEY": "sk-test-secret-123", "ANTHROPIC_BASE_URL": model.base_url},
                         timeout=1500)
            errors = model.script_errors
    finally:
        for script in scripts.values():
            script.close()
    seconds = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not errors, errors
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    got = {r["task"]: (r["status"], r["verdict"], r["stop_reason"]) for r in rows}
    assert sorted(got) == sorted(TASKS), got
    assert all(status == "intercepted" and verdict == "PASS" for status, verdict, _ in got.values()), got
    # the résumé reached the form through the GTK dialog: typed by xdotool, never a CDP file handle
    jobs = out / "runs" / "jobs-apply-analyst" / f"computer-use_anthropic_{MODEL}" / "trial-1"
    caught = json.loads((jobs / "interceptions.jsonl").read_text().splitlines()[0])["body"]
    assert caught["resume"]["filename"] == "resume.pdf" and caught["resume"]["size"] > 0
    calls = [r["content"] for r in map(json.loads, (jobs / "agent.jsonl").read_text().splitlines())
             if r["role"] == "tool_call"]
    assert {"action": "key", "text": "alt+o"} in calls and all(c["action"] != "upload" for c in calls)
    print(f"computer-use {len(TASKS)} demo tasks at -j 2: {seconds:.0f} s (load {os.getloadavg()[0]:.1f})")
