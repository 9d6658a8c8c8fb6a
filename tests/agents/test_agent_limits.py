"""The agents people bring honor the task's step limit (issue 25 item 4): a model that only ever asks for one more
look (a snapshot, a wait, a screenshot) is stopped once the agent went past `limits.steps` (claude-code and codex:
tool calls counted by clawrec from the CLI's own event stream, or Claude Code's own turn cap set one above;
browser-use: its own max_steps; computer-use: its loop), the run ends `timeout` with that reason in one line (not an
agent error), nothing is caught, and the agent's private directory is gone."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agents.agent_runs import use_model
from tests.pipeline.helpers import REPO, jsonl, manifest, run_cli
from tests.support.mcp_plans import for_mcp
from tests.support.model_script import ToolCall, Turn, browser
from tests.support.model_server import ModelServer


def _bu_wait(request, h) -> Turn:
    out = {"thinking": "", "evaluation_previous_goal": "", "memory": "", "next_goal": "look",
           "action": [{"wait": {"seconds": 0}}]}
    return Turn(tool_calls=[ToolCall("AgentOutput", out)])


SCRIPTS = {"claude-code": for_mcp(lambda request, h: browser(action="snapshot")),
           "codex": for_mcp(lambda request, h: browser(action="snapshot")), "browser-use": _bu_wait,
           "computer-use": lambda request, h: Turn(tool_calls=[ToolCall("computer", {"action": "screenshot"})])}


@pytest.mark.parametrize("agent, provider", [("claude-code", "anthropic"), ("codex", "openai"),
                                             ("browser-use", "anthropic"), ("computer-use", "anthropic")])
def test_step_limit_stops_the_agent(agent, provider, sites, tmp_path, capsys, monkeypatch):
    spec = tmp_path / "social-status-update.yaml"
    text = (REPO / "specs" / "demo" / spec.name).read_text()
    assert "limits: {time_s: 600, steps: 40}" in text
    spec.write_text(text.replace("steps: 40", "steps: 2"))
    with ModelServer(SCRIPTS[agent]) as model:
        use_model(model, provider, sites, monkeypatch)
        headless = [] if agent == "computer-use" else ["--headless"]  # computer use sees the run's X display
        code, out, err = run_cli([str(spec), "--agent", agent, "--model", f"{provider}/scripted", *headless,
                                  "--no-video", "--run-dir", str(tmp_path / "run")], capsys)
        asked = len(model.model_requests())
    assert code == 0, err
    m = manifest(tmp_path / "run")
    reason = m["stop_reason"]
    assert m["status"] == "timeout" and reason.startswith("step limit reached") and "\n" not in reason, (
        m["status"], reason)
    assert "step limit" in m["agent_result"]["message"], m["agent_result"]  # the agent's own words for it
    assert 2 <= asked < 10, asked  # stopped at the limit, not at the time limit
    assert not [line for line in err if "Traceback" in line]
    private = [Path(r["private_dir"]) for r in jsonl(tmp_path / "run", "agent.jsonl") if r.get("private_dir")]
    assert private or agent == "computer-use", "no private directory logged"  # computer use keeps no files
    assert not [p for p in private if p.exists()]
