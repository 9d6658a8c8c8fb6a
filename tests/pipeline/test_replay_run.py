"""`replay` re-enacts a recorded run: the replayed run catches the same terminal request with the same payload."""

from __future__ import annotations

from pathlib import Path

from tests.pipeline.helpers import jsonl, manifest, run_cli, signup_cmd
from tests.pipeline.tinysite import TinySite, write_spec


def test_replay_of_a_recorded_run_catches_the_same_payload(tmp_path, capsys):
    # Record: a Playwright script does the task under the full pipeline (its actions go to actions.jsonl).
    with TinySite() as site:
        spec = write_spec(tmp_path, site)
        code, out, err = run_cli([str(spec), "--agent", "command", "--agent-cmd", signup_cmd(), "--headless",
                                  "--runs-dir", str(tmp_path / "recorded")], capsys)
        assert code == 0, err
        recorded = Path(out[-1])
    # Replay on a NEW server (another port): URLs are mapped, targets found by their descriptors.
    with TinySite() as site2:
        spec = write_spec(tmp_path, site2)
        code, out, err = run_cli([str(spec), "--agent", "replay", "--from", str(recorded), "--headless",
                                  "--runs-dir", str(tmp_path / "replayed")], capsys)
        assert code == 0, err
        assert site2.posts("/api/signup") == []
    replayed = Path(out[-1])
    m = manifest(replayed)
    assert m["status"] == "intercepted", m["stop_reason"]
    before, after = jsonl(recorded, "interceptions.jsonl"), jsonl(replayed, "interceptions.jsonl")
    assert len(before) == len(after) == 1
    assert after[0]["url"] == site2.url + "api/signup" and after[0]["method"] == before[0]["method"] == "POST"
    assert after[0]["body"] == before[0]["body"] == {"name": "Alex Doe", "email": "alex@example.com", "plan": "pro"}
    calls = [r for r in jsonl(replayed, "agent.jsonl") if r["role"] == "tool_call"]
    # (the start page's `navigate` record is sometimes missing from a recording: the pipeline opens it anyway)
    assert [c["tool"] for c in calls if c["tool"] != "goto"] == ["fill", "fill", "select", "click"]
    # The replay's own browser actions were recorded too: the same click on the same button.
    clicks = [a for a in jsonl(replayed, "actions.jsonl") if a["type"] == "click"]
    assert [c["target"]["selector"] for c in clicks] == ["#go"]


def test_masked_password_cannot_be_replayed(tmp_path, capsys):
    """A recorded password is masked: the replay says so (agent_error with the reason), unless user info has one."""
    import json
    recorded = tmp_path / "recorded"
    recorded.mkdir()
    target = {"tag": "input", "id": "pw", "type": "password", "selector": "#pw", "xpath": "//*[@id=\"pw\"]",
              "secret": True}
    (recorded / "actions.jsonl").write_text("\n".join(json.dumps(r) for r in [
        {"t": 0.1, "seq": 1, "type": "keydown", "key": None, "masked": True, "target": target, "frame": 0},
        {"t": 0.9, "seq": 2, "type": "input", "value": None, "masked": True, "target": target, "frame": 0},
    ]) + "\n")
    with TinySite() as site:
        spec = write_spec(tmp_path, site)
        code, out, err = run_cli([str(spec), "--agent", "replay", "--from", str(recorded), "--headless",
                                  "--runs-dir", str(tmp_path / "replayed")], capsys)
    m = manifest(Path(out[-1]))
    assert code == 0 and m["status"] == "agent_error"
    assert "password" in m["stop_reason"] and "masked" in m["stop_reason"]
