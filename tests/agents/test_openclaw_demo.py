"""`clawrec run specs/demo/<task>.yaml --agent openclaw`: the real OpenClaw, driven by the scripted model server,
completes demo tasks. The terminal request is caught and never reaches the site (the site's own log), all five
layers exist, agent.jsonl holds OpenClaw's tool calls and results, and no OpenClaw process outlives the run.

These are the suite's OpenClaw runs (each ~20-60 s: OpenClaw's own start-up is ~7 s), so keep them to these two.
"""

from __future__ import annotations

import importlib
import json
import time
from pathlib import Path

import pytest
import yaml

from clawrec.agents.openclaw import secret_values
from tests.agents.test_openclaw import openclaw_pids
from tests.pipeline.helpers import REPO, jsonl, manifest, run_cli
from tests.support.model_server import ModelServer

LAYERS = ("video.mp4", "screenshots/screenshots.jsonl", "http.jsonl", "http.har", "interceptions.jsonl",
          "agent.jsonl", "actions.jsonl")
# script module, spec id, site, terminal path, model provider (wire format)
# the upload (Anthropic wire) and the GraphQL order (OpenAI wire); OpenClaw posting the social status through `clawrec
# run` is tests/pipeline/test_openclaw_run.py; the travel booking is left to the other agents' bench (BENCH=agents)
TASKS = [
    ("jobs", "jobs-apply-analyst", "jobs", "/jobs/1042/apply/submit", "anthropic"),
    ("shop", "shop-trail-order", "shop", "/graphql", "openai"),
]


@pytest.mark.parametrize("script, spec_id, site, terminal, provider", TASKS, ids=[t[1] for t in TASKS])
def test_openclaw_completes_demo_task(script, spec_id, site, terminal, provider, sites, tmp_path, capsys, monkeypatch):
    with ModelServer(importlib.import_module(f"tests.support.scripts.{script}").script()) as model:
        monkeypatch.setenv("CLAWREC_SITES", json.dumps(sites.urls))
        key_var, base_var, base_url = (("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", model.base_url)
                                       if provider == "anthropic" else
                                       ("OPENAI_API_KEY", "OPENAI_BASE_URL", model.openai_base_url))
        monkeypatch.setenv(key_var, "sk-test-secret-123")
        monkeypatch.setenv(base_var, base_url)
        start = time.time()
        code, out, err = run_cli([str(REPO / "specs" / "demo" / f"{spec_id}.yaml"), "--agent", "openclaw",
                                  "--model", f"{provider}/scripted", "--runs-dir", str(tmp_path)], capsys)
        assert not model.script_errors, model.script_errors
        requests = model.model_requests()
    assert code == 0, err
    run_dir = Path(out[-1])
    m = manifest(run_dir)
    assert m["status"] == "intercepted", (m["stop_reason"], m.get("agent_result"))
    # The terminal request was caught in the browser and never reached the site.
    caught = jsonl(run_dir, "interceptions.jsonl")
    assert caught and caught[0]["url"] == sites.urls[site].rstrip("/") + terminal
    port = int(sites.urls[site].rsplit(":", 1)[1].rstrip("/"))
    mine = [r for r in sites.records() if r["t"] >= start and r.get("port") == port]
    assert mine and not [r for r in mine if r["path"] == terminal and r["method"] == "POST"
                         and (site != "shop" or "PlaceOrder" in json.dumps(r))]
    for name in LAYERS:
        assert (run_dir / name).is_file() and (run_dir / name).stat().st_size > 0, name
    # OpenClaw talked to our endpoint over the chosen wire format; its browser calls and results are in agent.jsonl.
    path = "/v1/messages" if provider == "anthropic" else "/v1/chat/completions"
    assert requests and {r.path for r in requests} == {path} and requests[0].body["model"] == "scripted"
    log = jsonl(run_dir, "agent.jsonl")
    assert log[0]["role"] == "system" and log[1]["role"] == "user" and m["task"]["start_url"] in log[1]["content"]
    calls = [r for r in log if r["role"] == "tool_call"]
    results = {r["id"] for r in log if r["role"] == "tool_result"}
    assert len(calls) >= 5 and {c["tool"] for c in calls} == {"browser"}
    assert all(c["id"] in results for c in calls[:-1])  # the last may be cut short by the stop
    kinds = {c["content"].get("kind", c["content"]["action"]) for c in calls}
    assert {"navigate", "snapshot", "type", "click"} <= kinds
    # The spec's own values (task.json holds them redacted): none of 6+ characters is in agent.jsonl or task.json.
    spec_user = yaml.safe_load((REPO / "specs" / "demo" / f"{spec_id}.yaml").read_text())["user"]
    long_secrets = [v for _, v in secret_values(spec_user) if len(v) >= 6]  # e.g. the jobs password, the card
    for name in ("agent.jsonl", "task.json"):
        text = (run_dir / name).read_text()
        assert [v for v in long_secrets if v in text] == [], name
    times = [r["t"] for r in log]
    assert times == sorted(times) and times[-1] <= m.get("stop_t", times[-1]) + 5
    # OpenClaw's log and config are in the run dir, without the key; its private state dir and process group are gone.
    oc = run_dir / "openclaw"
    assert "sk-test-secret-123" not in (oc / "openclaw.json").read_text()
    assert (oc / "openclaw.log").stat().st_size > 0 and (oc / "stderr.log").exists()
    private = Path(next(r["private_dir"] for r in log if r.get("private_dir")))
    assert not private.exists() and not (oc / "state").exists()
    # The run stopped OpenClaw right after the catch (it was still running), and its whole process group died.
    assert m["stop_t"] - m["catch_t"] < 10 and openclaw_pids(private) == []
