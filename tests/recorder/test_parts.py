"""Recorder parts on their own: displays, agent-log normalization, manifest layers and recovery."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import urllib.request

import pytest

from recorder import manifest
from recorder.agent_log import AgentLogSink, normalize, recover_inbox
from recorder.browser import launch_browser
from recorder.display import start_display
from rundir.records import RunClock, read_jsonl
from recorder.extension_copy import EXTENSION_DIR, unpacked_extension_id
from recorder.video import VideoRecorder, segment_files


def test_parallel_displays_never_clash():
    displays = [start_display((320, 240)) for _ in range(3)]
    try:
        assert len({d.number for d in displays}) == 3
        for d in displays:  # each is a live X server of its own: ffmpeg grabs a frame of the asked size from it
            out = subprocess.run(["ffmpeg", "-v", "error", "-f", "x11grab", "-video_size", "320x240", "-i", d.name,
                                  "-frames:v", "1", "-f", "null", "-"], capture_output=True, text=True, timeout=30)
            assert d.alive() and out.returncode == 0, out.stderr
    finally:
        for d in displays:
            d.stop()
    assert not any(d.alive() for d in displays)


def test_normalize_agent_lines():
    clock = RunClock(t0=1_700_000_000.0)
    rec = normalize({"role": "ai", "text": "hi", "ts": 1_700_000_002.5, "t": 99, "model": "m"}, clock)
    assert rec == {"t": 2.5, "role": "assistant", "content": "hi", "model": "m"}
    assert normalize({"role": "tool", "content": "ok", "timestamp": 1_700_000_003_500}, clock)["t"] == 3.5
    iso = normalize({"role": "user", "content": "x", "time": "2023-11-14T22:13:24Z"}, clock)
    assert iso["t"] == 4.0 and iso["role"] == "user"
    odd = normalize({"role": "critic", "content": "?"}, clock)
    assert odd["role"] == "system" and odd["original_role"] == "critic"
    assert normalize(["not", "a", "dict"], clock)["unparsed"] is True


def test_agent_inbox_tail_and_crash_recovery(tmp_path):
    clock = RunClock()
    sink = AgentLogSink(tmp_path, clock)
    sink("assistant", "in-process", step=1)
    sink.inbox.write_text(json.dumps({"role": "tool_call", "tool": "click", "content": {}}) + "\n{broken\n")
    assert sink.drain() == 2
    with sink.inbox.open("a") as fh:  # written after the last drain, then the process "dies"
        fh.write(json.dumps({"role": "tool_result", "content": "late"}) + "\n" + '{"role": "assistant", "conte')
    sink.writer.close()
    assert recover_inbox(tmp_path, clock) == 2
    recs, bad = read_jsonl(tmp_path / "agent.jsonl")
    assert not bad
    assert [r["role"] for r in recs] == ["assistant", "tool_call", "system", "tool_result", "system"]
    assert recs[2]["unparsed"] and recs[4]["unparsed"] and recs[3]["content"] == "late"
    assert not sink.inbox.exists()


def test_manifest_layers_and_bad_status(tmp_path):
    (tmp_path / "actions.jsonl").write_text('{"t":1,"seq":1,"type":"click"}\n{"t":2,"seq"\n')
    (tmp_path / "http.har").write_text(json.dumps({"log": {"version": "1.2", "entries": [{}, {}]}}))
    (tmp_path / "interceptions.jsonl").write_text("")
    data = manifest.finish(tmp_path, {"t0": time.time() - 5, "id": "r"}, "intercepted", "caught POST /api")
    assert data["layers"]["actions"]["count"] == 1 and data["layers"]["actions"]["bad_lines"] == 1
    assert data["layers"]["har"]["count"] == 2 and data["layers"]["interceptions"]["count"] == 0
    assert len(data["layers"]["actions"]["sha256"]) == 64
    assert json.loads((tmp_path / "manifest.json").read_text())["status"] == "intercepted"
    with pytest.raises(ValueError, match="status must be one of"):
        manifest.finish(tmp_path, {"t0": 0}, "fine", "")


def test_recover_joins_segments_of_a_dead_recorder(tmp_path):
    display = start_display((320, 240))
    try:
        video = VideoRecorder(tmp_path, display.name, (320, 240), now=time.monotonic)
        manifest.write_manifest(tmp_path, {"id": "r", "t0": time.time(), "status": "running"})
        video.start()
        deadline = time.monotonic() + 30
        while len(segment_files(tmp_path)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        video.process.kill()  # SIGKILL: no clean end of the last segment
        video.process.wait()
    finally:
        display.stop()
    data = manifest.recover(tmp_path)
    assert data["status"] == "crashed" and data["layers"]["video"]["duration"] >= 2.0
    assert data["video_start_t"] >= 0 and "video joined from segments" in data["recovered"]["notes"]
    assert not (tmp_path / ".video-segments").exists()


def test_which_actions_get_a_screenshot():
    from recorder.screenshots import wants_shot

    shot = [{"type": "click"}, {"type": "keydown", "key": "Enter"}, {"type": "input"}, {"type": "load"},
            {"type": "scroll", "final": True}, {"type": "tab_switch"}, {"type": "change", "target": {"type": "select"}},
            {"type": "navigate", "via": "history", "frame": 0}]
    none = [{"type": "keydown", "key": "a"}, {"type": "focus"}, {"type": "scroll", "final": False},
            {"type": "change", "target": {"type": "text"}}, {"type": "navigate", "frame": 0}, {"type": "submit"}]
    assert all(wants_shot(a) for a in shot) and not any(wants_shot(a) for a in none)


def test_recover_cli_bad_input_is_one_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "recorder.manifest", str(tmp_path / "nope")], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr.strip() == f"recorder: {tmp_path / 'nope'}: not a run directory"


def test_unpacked_extension_id_matches_chromium(browser_with_extension):
    browser, ext_dir = browser_with_extension
    deadline = time.monotonic() + 20
    urls: list[str] = []
    while time.monotonic() < deadline and not any("background.js" in u for u in urls):
        urls = [t["url"] for t in json.load(urllib.request.urlopen(f"{browser.http_url}/json/list", timeout=10))]
        time.sleep(0.1)
    assert f"chrome-extension://{unpacked_extension_id(ext_dir)}/background.js" in urls


@pytest.fixture
def browser_with_extension(tmp_path, chromium_path):
    ext = tmp_path / "ext"
    shutil.copytree(EXTENSION_DIR, ext)
    b = launch_browser(headless=True, extension_dir=ext)
    yield b, ext
    b.close()
