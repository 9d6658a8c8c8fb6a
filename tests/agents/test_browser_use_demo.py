"""`clawrec bench specs/demo --agent browser-use -j 2`: the real browser-use completes the jobs task (upload) and the
popup share (all five: `make bench BENCH=agents`) against one scripted Anthropic server (tests/support/bu_demo.py reads the element list each
request holds), every terminal request caught and every run payload-judged PASS (a failing model API: test_model_api_down.py)."""

from __future__ import annotations

import json
import time

from tests.agents.agent_runs import KEY
from tests.bench.helpers import DEMO, FAST, bench
from tests.support.bu_demo import dispatching
from tests.support.demo_bench import TEST_TASKS
from tests.support.model_server import ModelServer


def test_browser_use_passes_demo_tasks(tmp_path):
    out = tmp_path / "bench"
    with ModelServer(dispatching()) as model:
        started = time.monotonic()
        proc = bench(str(DEMO), "--agent", "browser-use", "--model", "anthropic/scripted", "-j", "2", "--judge",
                     "payload", "--out", str(out), *FAST, *(a for t in TEST_TASKS for a in ("--ids", t)),
                     env={"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": model.base_url}, timeout=1500)
        seconds = time.monotonic() - started
        errors = [repr(e)[:500] for e in model.script_errors]
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert not errors, errors
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(r["task"] for r in results) == sorted(TEST_TASKS)
    failed = {r["task"]: (r["status"], r["verdict"], r["stop_reason"]) for r in results
              if r["status"] != "intercepted" or r["verdict"] != "PASS"}
    assert not failed, failed
    assert all(r["attempts"] == 1 and r["requests"] >= 3 for r in results)
    print(f"browser-use: {len(results)} demo tasks PASS in {seconds:.0f} s at -j 2")

