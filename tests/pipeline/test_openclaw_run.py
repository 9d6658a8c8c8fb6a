"""The command the user named: `clawrec run TASK.yaml --agent openclaw` with the real OpenClaw (npm) attached to the
run's Chromium and driven by the scripted model server (one demo task end to end; the adapter's own tests cover
the rest). The terminal request is caught, the site never receives it, OpenClaw's tool calls and results are in
agent.jsonl, and all five layers exist."""

from __future__ import annotations

import json
import time
from pathlib import Path

from tests.pipeline.helpers import REPO, jsonl, manifest, run_cli
from tests.support.model_server import ModelServer
from tests.support.scripts import social

LAYERS = ("video.mp4", "screenshots/screenshots.jsonl", "http.jsonl", "http.har", "interceptions.jsonl",
          "agent.jsonl", "actions.jsonl")


def test_openclaw_posts_a_status_through_clawrec_run(sites, tmp_path, capsys, monkeypatch):
    with ModelServer(social.script()) as model:
        monkeypatch.setenv("CLAWREC_SITES", json.dumps(sites.urls))
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", model.base_url)
        start = time.time()
        code, out, err = run_cli([str(REPO / "specs" / "demo" / "social-status-update.yaml"), "--agent", "openclaw",
                                  "--model", "anthropic/claude-scripted", "--runs-dir", str(tmp_path)], capsys)
        assert not model.script_errors, model.script_errors
    assert code == 0, err
    run_dir = Path(out[-1])
    m = manifest(run_dir)
    assert m["status"] == "intercepted" and m["agent"] == "openclaw", m["stop_reason"]
    caught = jsonl(run_dir, "interceptions.jsonl")
    assert caught[0]["url"] == sites.urls["social"] + "api/posts"
    assert caught[0]["body"]["audience"] == "friends"
    port = int(sites.urls["social"].rsplit(":", 1)[1].rstrip("/"))
    mine = [r for r in sites.records() if r["t"] >= start and r.get("port") == port]
    assert mine and not [r for r in mine if r["path"] == "/api/posts" and r["method"] == "POST"]
    for name in LAYERS:
        assert (run_dir / name).is_file() and (run_dir / name).stat().st_size > 0, name
    log = jsonl(run_dir, "agent.jsonl")
    calls = [r for r in log if r["role"] == "tool_call"]
    assert calls and [r for r in log if r["role"] == "tool_result"]
    assert any(c.get("tool") == "browser" for c in calls)
