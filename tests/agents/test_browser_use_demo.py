"""`clawrec bench specs/demo --agent browser-use -j 2`: the real browser-use completes all 5 demo tasks (the popup
share included) against one scripted Anthropic server (tests/support/bu_demo.py reads the element list each
request holds), every terminal request caught and every run payload-judged PASS; and a model/API failure ends the
run as one line `agent_error`, no traceback."""

from __future__ import annotations

import json
import time

from tests.agents.agent_runs import KEY, use_model
from tests.bench.helpers import DEMO, FAST, bench
from tests.pipeline.helpers import REPO, manifest, run_cli
from tests.support.bu_demo import PLANS, dispatching
from tests.support.model_script import Turn
from tests.support.model_server import ModelServer


def test_browser_use_passes_the_five_demo_tasks(tmp_path):
    out = tmp_path / "bench"
    with ModelServer(dispatching()) as model:
        started = time.monotonic()
        proc = bench(str(DEMO), "--agent", "browser-use", "--model", "anthropic/scripted", "-j", "2", "--judge",
                     "payload", "--out", str(out), *FAST,
                     env={"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": model.base_url}, timeout=1500)
        seconds = time.monotonic() - started
        errors = [repr(e)[:500] for e in model.script_errors]
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert not errors, errors
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(r["task"] for r in results) == sorted(PLANS)
    failed = {r["task"]: (r["status"], r["verdict"], r["stop_reason"]) for r in results
              if r["status"] != "intercepted" or r["verdict"] != "PASS"}
    assert not failed, failed
    assert all(r["attempts"] == 1 and r["requests"] >= 3 for r in results)
    print(f"browser-use: 5/5 demo tasks PASS in {seconds:.0f} s at -j 2")


def test_browser_use_model_failure_is_one_line_agent_error(sites, tmp_path, capsys, monkeypatch):
    """The API refuses every request (HTTP 400): browser-use gives up, the run ends `agent_error` in one line."""
    with ModelServer(lambda request, h: Turn(text="never")) as model:
        model.inject_error(400, count=100)
        use_model(model, "anthropic", sites, monkeypatch)
        code, out, err = run_cli([str(REPO / "specs" / "demo" / "social-status-update.yaml"), "--agent",
                                  "browser-use", "--model", "anthropic/scripted", "--headless",
                                  "--run-dir", str(tmp_path / "run")], capsys)
    assert code == 0, err
    m = manifest(tmp_path / "run")
    assert m["status"] == "agent_error", (m["status"], m["stop_reason"])
    assert "browser-use failed" in m["stop_reason"] and "400" in m["stop_reason"], m["stop_reason"]
    assert "\n" not in m["stop_reason"] and "Traceback" not in m["stop_reason"]
    assert not [line for line in err if "Traceback" in line]
