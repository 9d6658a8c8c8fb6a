"""`clawrec run --agent codex`: the real Codex CLI (`codex exec --json`, our own provider on OPENAI_BASE_URL, the
Responses API streamed) with Playwright MCP on the run's Chromium (a `namespace` tool on the wire) plays the demo
social task's WRONG script (audience Public; tests/support/mcp_demo.py) against the scripted server, stopped at once
after the catch (--grace 0: the adapter is cancelled and still reports its usage). The catch is judged FAIL (the
five right scripts' PASS: test_mcp_demo.py); agent.jsonl holds its MCP calls and results, the manifest its usage;
its private directory and process group are gone."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.agents.agent_runs import run_demo
from tests.pipeline.helpers import jsonl
from tests.support.mcp_demo import demo_script


def test_codex_wrong_script_is_judged_fail(sites, tmp_path, capsys, monkeypatch):
    run = run_demo("codex", "social-status-update", demo_script("social-status-update", wrong=True), "openai",
                   tmp_path / "run", sites, capsys, monkeypatch, extra=("--grace", "0"))
    assert run.verdict == "FAIL"
    assert jsonl(run.run_dir, "interceptions.jsonl")[0]["body"]["audience"] == "public"  # caught, then judged
    assert {r.path for r in run.requests} == {"/v1/responses"} and all(r.body.get("stream") for r in run.requests)
    spaces = [t for t in run.requests[0].body["tools"] if t.get("type") == "namespace"]
    assert [t["name"] for t in spaces] == ["mcp__playwright"]
    names = {t.get("name") for t in run.requests[0].body["tools"]}
    assert not names & {"exec_command", "web_search", "view_image", "image_generation"}, names  # no shell, no web
    log = run.log()
    calls = [r for r in log if r["role"] == "tool_call"]
    assert {"playwright.browser_type", "playwright.browser_select_option"} <= {c["tool"] for c in calls}
    assert not [c for c in calls if c["tool"] == "shell"]
    usage = run.manifest["agent_result"]["usage"]
    assert usage["model"] == "openai/scripted" and usage["input_tokens"] > 0
    private = Path(next(r["private_dir"] for r in log if r.get("private_dir")))
    assert not private.exists()
    left = subprocess.run(["pgrep", "-f", str(private)], capture_output=True, text=True).stdout.split()
    assert left == []  # Codex and its MCP server died with the run
