"""`clawrec run --agent claude-code`: the real Claude Code CLI (`claude -p`, stream-json, --bare) whose only tool is
Playwright MCP on the run's Chromium completes a demo task against the scripted Anthropic server (streaming Messages
with tool use; tests/support/mcp_plans.py plays the demo scripts through MCP tools). The catch is judged PASS (a
wrong script's FAIL: bench/agents.py); agent.jsonl holds its MCP calls and results, the manifest its usage; its
private directory and process group are gone."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.agents.agent_runs import run_demo
from tests.support.mcp_plans import for_mcp
from tests.support.scripts.plan import click, navigate, plan, select, type_

COMMENT = "Congratulations, Maria!"
STATUS = "Ran my first trail half marathon today: 2:04 at Barton Creek!"


def social(audience: str):
    return for_mcp(plan(navigate(), type_("textbox", "Write a comment on Maria Chen", COMMENT, submit=True),
                        type_("textbox", "What's on your mind", STATUS), select("combobox", "Audience", audience),
                        click("button", "Post", exact=True), final="I commented and posted the status."))


# The wrong-script (FAIL) run of this agent is in `make bench` (bench/agents.py): the suite's time budget.
@pytest.mark.parametrize("audience, verdict", [("friends", "PASS")])
def test_claude_code_completes_social_task(audience, verdict, sites, tmp_path, capsys, monkeypatch):
    run = run_demo("claude-code", "social-status-update", social(audience), "anthropic", tmp_path / "run", sites,
                   capsys, monkeypatch)
    assert run.verdict == verdict
    tools = run.requests[0].body["tools"]
    names = {t["name"] for t in tools}
    assert "mcp__playwright__browser_snapshot" in names and all(n.startswith("mcp__playwright__") for n in names)
    assert all(r.body.get("stream") is True for r in run.requests)
    log = run.log()
    calls = [r for r in log if r["role"] == "tool_call"]
    results = {r["id"] for r in log if r["role"] == "tool_result"}
    assert {"mcp__playwright__browser_type", "mcp__playwright__browser_select_option"} <= {c["tool"] for c in calls}
    assert all(c["id"] in results for c in calls[:-1])
    usage = run.manifest["agent_result"]["usage"]
    assert usage["model"] == "anthropic/scripted" and usage["requests"] >= 1 and usage["input_tokens"] > 0
    private = Path(next(r["private_dir"] for r in log if r.get("private_dir")))
    assert not private.exists()
    left = subprocess.run(["pgrep", "-f", str(private)], capture_output=True, text=True).stdout.split()
    assert left == []  # Claude Code and its MCP server died with the run
