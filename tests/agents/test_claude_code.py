"""`clawrec run --agent claude-code`: the real Claude Code CLI (`claude -p`, stream-json, --bare) whose only tool is
Playwright MCP on the run's Chromium plays the demo social task's WRONG script (the audience Public instead of
Friends; tests/support/mcp_demo.py) against the scripted Anthropic server (streaming Messages with tool use): the
terminal request is caught and the payload judge says FAIL (the five right scripts' PASS: test_mcp_demo.py);
agent.jsonl holds its MCP calls and results, the manifest its usage; its private directory and process group are
gone."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.agents.agent_runs import run_demo
from tests.pipeline.helpers import jsonl
from tests.support.mcp_demo import demo_script


def test_claude_code_wrong_script_is_judged_fail(sites, tmp_path, capsys, monkeypatch):
    run = run_demo("claude-code", "social-status-update", demo_script("social-status-update", wrong=True),
                   "anthropic", tmp_path / "run", sites, capsys, monkeypatch)
    assert run.verdict == "FAIL"
    assert jsonl(run.run_dir, "interceptions.jsonl")[0]["body"]["audience"] == "public"  # caught, then judged
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
