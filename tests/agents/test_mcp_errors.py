"""claude-code and codex when the model API refuses (HTTP 400 on every request, the provider's own error body): the
run ends `agent_error` with one line naming the CLI and its reason (issue 25 item 4), no traceback, and the CLI's
private directory is gone."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agents.agent_runs import use_model
from tests.pipeline.helpers import REPO, jsonl, manifest, run_cli
from tests.support.model_script import Turn
from tests.support.model_server import ModelServer


@pytest.mark.parametrize("agent, provider", [("claude-code", "anthropic"), ("codex", "openai")])
def test_model_api_failure_is_one_line_agent_error(agent, provider, sites, tmp_path, capsys, monkeypatch):
    with ModelServer(lambda request, h: Turn(text="never")) as model:
        model.inject_error(400, count=1000)
        use_model(model, provider, sites, monkeypatch)
        code, out, err = run_cli([str(REPO / "specs" / "demo" / "social-status-update.yaml"), "--agent", agent,
                                  "--model", f"{provider}/scripted", "--headless", "--no-video",
                                  "--run-dir", str(tmp_path / "run")], capsys)
        assert model.model_requests(), "the CLI never reached the model server"
    assert code == 0, err
    m = manifest(tmp_path / "run")
    assert m["status"] == "agent_error", (m["status"], m["stop_reason"])
    reason = m["stop_reason"]
    assert f"{agent} failed" in reason and "400" in reason and "\n" not in reason, reason
    assert not [line for line in err if "Traceback" in line]
    private = Path(next(r["private_dir"] for r in jsonl(tmp_path / "run", "agent.jsonl") if r.get("private_dir")))
    assert not private.exists()
