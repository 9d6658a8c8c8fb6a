"""The command the user named: `clawrec run TASK.yaml --agent openclaw` with the real OpenClaw (npm) attached to the
run's Chromium and driven by the scripted model server (one demo task end to end; the adapter's own tests cover
the rest). The terminal request is caught, the site never receives it, OpenClaw's tool calls and results are in
agent.jsonl, and all five layers exist. The spec adds an env-sourced password and a `secrets:`-marked field:
OpenClaw gets both in its prompt (the model server's own log), and no file of the run directory holds either
(OpenClaw's prompt and state live in a private directory outside it, removed at the end)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from tests.pipeline.helpers import REPO, jsonl, manifest, run_cli
from tests.support.model_server import ModelServer
from tests.support.scripts import social

LAYERS = ("video.mp4", "screenshots/screenshots.jsonl", "http.jsonl", "http.har", "interceptions.jsonl",
          "agent.jsonl", "actions.jsonl")
PASSWORD = "Opal-Heron-5521!"    # from the environment
RECOVERY = "Quill7-Tamarind-204"  # marked secret in the spec


def _secret_spec(folder: Path) -> Path:
    """The demo spec with the two secret user fields."""
    text = (REPO / "specs" / "demo" / "social-status-update.yaml").read_text()
    old = "user: {name: Alex Doe, handle: alex}\n"
    assert old in text
    path = folder / "social-status-update.yaml"
    path.write_text(text.replace(old, "user: {name: Alex Doe, handle: alex, password: {env: CLAWREC_TEST_OC_PASSWORD},"
                                      f" recovery_code: {RECOVERY}}}\nsecrets: [recovery_code]\n"))
    return path


def test_openclaw_posts_a_status_through_clawrec_run(sites, tmp_path, capsys, monkeypatch):
    with ModelServer(social.script()) as model:
        monkeypatch.setenv("CLAWREC_SITES", json.dumps(sites.urls))
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", model.base_url)
        monkeypatch.setenv("CLAWREC_TEST_OC_PASSWORD", PASSWORD)
        start = time.time()
        code, out, err = run_cli([str(_secret_spec(tmp_path)), "--agent", "openclaw",
                                  "--model", "anthropic/claude-scripted", "--runs-dir", str(tmp_path / "runs")], capsys)
        assert not model.script_errors, model.script_errors
        prompt = model.model_requests()[0].history.messages[0].text
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
    # Secrets: OpenClaw got both values, and no file of the run directory holds either (its own files included).
    assert f"- password: {PASSWORD}\n" in prompt and f"- recovery_code: {RECOVERY}\n" in prompt
    held = [(str(p.relative_to(run_dir)), v) for p in run_dir.rglob("*") if p.is_file()
            for v in (PASSWORD, RECOVERY) if v.encode() in p.read_bytes()]
    assert held == []
    assert (run_dir / "openclaw" / "openclaw.log").stat().st_size > 0 and not (run_dir / "openclaw" / "state").exists()
    private = Path(next(r["private_dir"] for r in log if r.get("private_dir")))
    assert run_dir not in private.parents and not private.exists()
