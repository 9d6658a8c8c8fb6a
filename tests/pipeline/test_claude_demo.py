"""`clawrec run --agent claude` completes the demo tasks through the real anthropic SDK against the scripted
Anthropic server: the terminal request is caught, the site never receives it, agent.jsonl holds the tool calls and
results, and all five layers exist."""

from __future__ import annotations

import importlib
import json
import time
from pathlib import Path

import pytest

from tests.pipeline.claude_plans import for_claude
from tests.pipeline.helpers import REPO, jsonl, manifest, run_cli
from tests.support.model_server import ModelServer

# script module, spec id, site, terminal path, text that marks the terminal request among others to that path
TASKS = [
    ("travel", "travel-flight-oneway", "travel", "/api/bookings", ""),
    ("jobs", "jobs-apply-analyst", "jobs", "/jobs/1042/apply/submit", ""),
    ("social", "social-status-update", "social", "/api/posts", ""),
    ("shop", "shop-trail-order", "shop", "/graphql", "PlaceOrder"),
]
LAYERS = ("video.mp4", "screenshots/screenshots.jsonl", "http.jsonl", "http.har", "interceptions.jsonl",
          "agent.jsonl", "actions.jsonl")


@pytest.mark.parametrize("script, spec_id, site, terminal, marker", TASKS, ids=[t[1] for t in TASKS])
def test_claude_completes_demo_task(script, spec_id, site, terminal, marker, sites, tmp_path, capsys, monkeypatch):
    module = importlib.import_module(f"tests.support.scripts.{script}")
    with ModelServer(for_claude(module.script())) as model:
        monkeypatch.setenv("CLAWREC_SITES", json.dumps(sites.urls))
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", model.base_url)
        start = time.time()
        code, out, err = run_cli([str(REPO / "specs" / "demo" / f"{spec_id}.yaml"), "--agent", "claude",
                                  "--model", "anthropic/claude-scripted", "--runs-dir", str(tmp_path)], capsys)
        assert not model.script_errors, model.script_errors
        requests = model.model_requests("anthropic")
    assert code == 0, err
    run_dir = Path(out[-1])
    m = manifest(run_dir)
    assert m["status"] == "intercepted", m["stop_reason"]
    caught = jsonl(run_dir, "interceptions.jsonl")
    assert caught and caught[0]["url"] == sites.urls[site].rstrip("/") + terminal
    port = int(sites.urls[site].rsplit(":", 1)[1].rstrip("/"))
    mine = [r for r in sites.records() if r["t"] >= start and r.get("port") == port]
    assert mine and not [r for r in mine if r["path"] == terminal and r["method"] == "POST"
                         and marker in str(r.get("body", ""))]
    if marker:
        assert marker in json.dumps(caught[0]["body"])
    for name in LAYERS:
        assert (run_dir / name).is_file() and (run_dir / name).stat().st_size > 0, name
    assert m["layers"]["video"]["duration"] > 1 and m["layers"]["screenshots"]["count"] > 0
    log = jsonl(run_dir, "agent.jsonl")
    calls = [r for r in log if r["role"] == "tool_call"]
    results = [r for r in log if r["role"] == "tool_result"]
    assert len(calls) == len(results) >= 5 and {"snapshot", "click", "type"} <= {c["tool"] for c in calls}
    assert not [r for r in results if r.get("is_error")], [r["content"] for r in results if r.get("is_error")]
    assert all(r.body["model"] == "claude-scripted" for r in requests) and len(requests) >= len(calls) // 2
