"""`clawrec run --agent browser-use`: the real browser-use (its own venv in .tools/), attached to the run's Chromium
by CDP URL, completes a demo task against the scripted Anthropic server (tests/support/browser_use_plan.py reads the
element list browser-use sends). The catch is judged PASS (a wrong script's FAIL: bench/agents.py); its steps are in
agent.jsonl, its usage in the manifest, and its private directory is gone."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agents.agent_runs import run_demo
from tests.support.browser_use_plan import bu_plan, click, select, type_in

COMMENT = "Congratulations, Maria!"
STATUS = "Ran my first trail half marathon today: 2:04 at Barton Creek!"


# The wrong-script (FAIL) run of this agent is in `make bench` (bench/agents.py): the suite's time budget.
@pytest.mark.parametrize("audience, verdict", [("Friends", "PASS")])
def test_browser_use_completes_social_task(audience, verdict, sites, tmp_path, capsys, monkeypatch):
    script = bu_plan(type_in("Write a comment on Maria Chen", COMMENT, submit=True),
                     type_in("What's on your mind", STATUS), select("id=audience", audience),
                     click("Post", tag="button", exact=True), final="Commented and posted the status.")
    run = run_demo("browser-use", "social-status-update", script, "anthropic", tmp_path / "run", sites, capsys,
                   monkeypatch)
    assert run.verdict == verdict
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
