"""A model API that is down (HTTP 500 on every request, the provider's own error body), for every agent that talks
to a model (issue 35 item 4): the run ends `agent_error` promptly, naming the status, instead of waiting out the
time limit (Claude Code retried for the whole limit and ended `timeout`, "stopped by the run"); each failed request
the agent saw (its retries included) is a record in agent.jsonl and is counted in the usage (`failed_requests`).
clawrec's own limit on failures in a row is set low here (CLAWREC_MODEL_FAILURES=2) to keep the tests short. (The
browser-use and computer-use tests of an API that refuses with HTTP 400 were folded into these: the same path.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.diagnose import diagnose
from tests.agents.agent_runs import use_model
from tests.pipeline.helpers import REPO, jsonl, manifest, run_cli
from tests.support.model_script import Turn
from tests.support.model_server import ModelServer

TIME_LIMIT_S = 300  # what a run whose agent waits out its retries would take
AGENTS = [("claude", "anthropic"), ("computer-use", "anthropic"), ("claude-code", "anthropic"),
          ("openclaw", "anthropic"), ("browser-use", "anthropic"), ("codex", "openai")]


@pytest.mark.parametrize("agent, provider", AGENTS)
def test_a_failing_model_api_is_a_prompt_agent_error_naming_the_status(agent, provider, sites, tmp_path, capsys,
                                                                       monkeypatch):
    monkeypatch.setenv("CLAWREC_MODEL_FAILURES", "2")
    with ModelServer(lambda request, history: Turn(error=500)) as model:
        use_model(model, provider, sites, monkeypatch)
        args = [str(REPO / "specs" / "demo" / "social-status-update.yaml"), "--agent", agent, "--model",
                f"{provider}/scripted", "--no-video", "--time-limit", str(TIME_LIMIT_S),
                "--run-dir", str(tmp_path / "run")]
        code, _out, err = run_cli(args + ([] if agent == "computer-use" else ["--headless"]), capsys)
        sent = len(model.model_requests())
    assert code == 0, err
    m = manifest(tmp_path / "run")
    reason = m["stop_reason"]
    assert m["status"] == "agent_error", (m["status"], reason)
    assert "HTTP 500" in reason and "\n" not in reason, reason
    assert not [line for line in err if "Traceback" in line]
    assert m["duration"] < TIME_LIMIT_S - 60, m["duration"]  # not the time limit (a loaded machine starts slowly)
    log = jsonl(tmp_path / "run", "agent.jsonl")
    failed = [r for r in log if r.get("model_api_error")]
    private = [Path(r["private_dir"]) for r in log if r.get("private_dir")]
    assert not [p for p in private if p.exists()]  # the agent program's private directory is gone
    usage = m["agent_result"]["usage"]
    assert failed and usage["failed_requests"] == len(failed) <= sent, (usage, len(failed), sent)
    assert {r["error_status"] for r in failed} == {500}
    assert [r["content"].split(" (")[0] for r in failed] == ["model API error: HTTP 500"] * len(failed)
    if agent in ("claude", "computer-use", "browser-use"):  # clawrec sees every HTTP response of their SDK
        assert len(failed) == sent
    d = diagnose(tmp_path / "run", None)  # the cause: the model API, not the agent or a limit
    assert d.category == "infrastructure" and "HTTP 500" in d.cause.summary, d.cause.to_dict()
