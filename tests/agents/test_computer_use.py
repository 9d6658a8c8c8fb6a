"""`clawrec run --agent computer-use`: the anthropic SDK's computer-use loop, with screenshots of the run's Xvfb and
input by xdotool, plays the wrong social script (tests/support/cu_demo.py: audience Public) against the scripted
Anthropic server. The terminal request is caught and judged FAIL (the 5 tasks' PASS runs are
test_computer_use_demo.py's bench); the clicks in actions.jsonl are trusted and carry screen coordinates that differ
from the page's by the browser's toolbar."""

from __future__ import annotations

import json
import time
from pathlib import Path

from clawrec.cli import main
from tests.agents.agent_runs import use_model
from tests.pipeline.helpers import REPO, jsonl, manifest, run_cli
from tests.support.cu_demo import demo_script
from tests.support.model_server import ModelServer

STATUS = "Ran my first trail half marathon today: 2:04 at Barton Creek!"


def run_social(sites, tmp_path: Path, capsys, monkeypatch) -> tuple[Path, list, float]:
    run_dir = tmp_path / "run-wrong"
    script = demo_script("social-status-update", wrong=True, run_dir=run_dir)
    try:
        with ModelServer(script) as model:
            use_model(model, "anthropic", sites, monkeypatch)
            start = time.time()
            code, out, err = run_cli([str(REPO / "specs" / "demo" / "social-status-update.yaml"), "--agent",
                                      "computer-use", "--model", "anthropic/claude-scripted", "--run-dir",
                                      str(run_dir)], capsys)
            assert not model.script_errors, model.script_errors
            requests = model.model_requests("anthropic")
    finally:
        script.close()
    assert code == 0, err
    m = manifest(run_dir)
    assert m["status"] == "intercepted", (m["stop_reason"], m.get("agent_result"))
    return run_dir, requests, start


def judge(run_dir: Path, capsys) -> str:
    assert main(["judge", str(run_dir), "--judge", "payload"]) == 0
    capsys.readouterr()
    return json.loads((run_dir / "verdict.json").read_text())["verdict"]


def test_computer_use_wrong_social_script_is_caught_and_fails(sites, tmp_path, capsys, monkeypatch):
    run_dir, requests, start = run_social(sites, tmp_path, capsys, monkeypatch)
    caught = jsonl(run_dir, "interceptions.jsonl")
    assert caught and caught[0]["body"]["text"] == STATUS
    assert caught[0]["body"]["audience"] == "public"
    port = int(sites.urls["social"].rsplit(":", 1)[1].rstrip("/"))
    assert not [r for r in sites.records() if r["t"] >= start and r.get("port") == port
                and r["path"] == "/api/posts" and r["method"] == "POST"]  # never reached the site
    assert judge(run_dir, capsys) == "FAIL"
    # The model got the computer tool (no browser handle) and screenshots of the whole screen.
    body = requests[0].body
    assert [t["type"] for t in body["tools"]] == ["computer_20250124"] and body["tools"][0]["display_width_px"] == 1280
    assert "anthropic-beta" in requests[0].headers and "computer-use" in requests[0].headers["anthropic-beta"]
    images = [b for r in requests[1:2] for m in r.body["messages"] if isinstance(m["content"], list)
              for blk in m["content"] if blk.get("type") == "tool_result" for b in blk["content"]
              if b.get("type") == "image"]
    assert images and images[0]["source"]["media_type"] == "image/png"
    # The clicks reached the page as a person's: trusted, at screen coordinates offset by the browser's toolbar.
    clicks = [a for a in jsonl(run_dir, "actions.jsonl") if a["type"] == "click" and a["detail"]]  # mouse, not Enter
    assert len(clicks) >= 3 and all(c["trusted"] is True for c in clicks)
    assert all(c["screen_y"] > c["y"] + 20 for c in clicks)
    log = jsonl(run_dir, "agent.jsonl")
    calls = [r for r in log if r["role"] == "tool_call"]
    assert {c["content"]["action"] for c in calls} >= {"screenshot", "left_click", "type", "key"}
    assert all(c["tool"] == "computer" for c in calls) and "base64" not in (run_dir / "agent.jsonl").read_text()
    usage = manifest(run_dir)["agent_result"]["usage"]
    assert usage["requests"] == len(requests) and usage["input_tokens"] > 0
    assert "sk-test-secret-123" not in "".join(p.read_text(errors="replace") for p in run_dir.rglob("*.json*"))

