"""claude-code and codex honor the task's step limit (issue 25 item 4): a model that only ever asks for one more
snapshot is stopped once the CLI went past `limits.steps` tool calls (counted by clawrec from the CLI's own event
stream; Claude Code's own turn cap, set one above, may end it first: the same limit, not an agent error), the run
ends `timeout` with that reason in one line, nothing is caught, and the CLI's private
directory is gone."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agents.agent_runs import use_model
from tests.pipeline.helpers import REPO, jsonl, manifest, run_cli
from tests.support.mcp_plans import for_mcp
from tests.support.model_script import browser
from tests.support.model_server import ModelServer


@pytest.mark.parametrize("agent, provider", [("claude-code", "anthropic"), ("codex", "openai")])
def test_step_limit_stops_the_cli(agent, provider, sites, tmp_path, capsys, monkeypatch):
    spec = tmp_path / "social-status-update.yaml"
    text = (REPO / "specs" / "demo" / spec.name).read_text()
    assert "limits: {time_s: 600, steps: 40}" in text
    spec.write_text(text.replace("steps: 40", "steps: 2"))
    with ModelServer(for_mcp(lambda request, h: browser(action="snapshot"))) as model:
        use_model(model, provider, sites, monkeypatch)
        code, out, err = run_cli([str(spec), "--agent", agent, "--model", f"{provider}/scripted", "--headless",
                                  "--no-video", "--run-dir", str(tmp_path / "run")], capsys)
        asked = len(model.model_requests())
    assert code == 0, err
    m = manifest(tmp_path / "run")
    reason = m["stop_reason"]
    assert m["status"] == "timeout" and reason.startswith("step limit reached") and "\n" not in reason, (
        m["status"], reason)
    assert f"{agent} went past the step limit (2 tool calls allowed)" in m["agent_result"]["message"], m["agent_result"]
    assert 3 <= asked < 10, asked  # stopped right after the third call, not at the time limit
    assert not [line for line in err if "Traceback" in line]
    private = Path(next(r["private_dir"] for r in jsonl(tmp_path / "run", "agent.jsonl") if r.get("private_dir")))
    assert not private.exists()
