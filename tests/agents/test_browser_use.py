"""`clawrec run --agent browser-use`: the real browser-use (its own venv in .tools/), attached to the run's Chromium
by CDP URL, plays a demo task's WRONG script (tests/support/bu_demo.py: audience "Only me") against the scripted
Anthropic server: the terminal is caught and the payload judge says FAIL (the right scripts' 5/5 PASS:
test_browser_use_demo.py); its steps are in agent.jsonl, its usage in the manifest, its private directory is gone."""

from __future__ import annotations

import json
from pathlib import Path

from tests.agents.agent_runs import run_demo
from tests.support.bu_demo import demo_script


def test_browser_use_wrong_script_is_judged_fail(sites, tmp_path, capsys, monkeypatch):
    run = run_demo("browser-use", "social-status-update", demo_script("social-status-update", wrong=True),
                   "anthropic", tmp_path / "run", sites, capsys, monkeypatch, extra=("--headless",))
    assert run.verdict == "FAIL"
    failed = [c for c in json.loads((run.run_dir / "verdict.json").read_text())["conditions"] if not c["met"]]
    assert [c["condition"] for c in failed] == ['Field audience equals "friends"'], failed
    assert "only_me" in failed[0]["detail"]
    # browser-use asked our endpoint for its structured output (a forced AgentOutput tool call), with the page's
    # elements it read over CDP.
    first = run.requests[0].body
    assert run.requests[0].path == "/v1/messages" and first["tool_choice"] == {"type": "tool", "name": "AgentOutput"}
    assert "Write a comment on Maria Chen" in str(first["messages"])
    log = run.log()
    calls = [r for r in log if r["role"] == "tool_call"]
    assert {"input", "select_dropdown"} <= {c["tool"] for c in calls}  # the click that submits may be cut short
    assert [r for r in log if r["role"] == "tool_result"] and [r for r in log if r["role"] == "assistant"]
    times = [r["t"] for r in log]
    assert times == sorted(times)
    usage = run.manifest["agent_result"]["usage"]
    assert usage["requests"] >= 3 and usage["input_tokens"] > 0 and usage["model"] == "anthropic/scripted"
    private = Path(next(r["private_dir"] for r in log if r.get("private_dir")))
    assert not private.exists()
    assert (run.run_dir / "browser-use" / "stderr.log").exists()
