"""Crashes: ffmpeg, Chromium, the agent, or clawrec itself dies → the manifest says so, JSONL parses, video plays."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from playwright.async_api import async_playwright

from recorder.manifest import recover
from rundir.records import read_jsonl
from recorder.session import Recording
from tests.recorder.helpers import (actions, assert_all_jsonl_parse, assert_video_covers_run, assert_video_plays,
                                   serve_test_site, wait_for)

REPO = Path(__file__).resolve().parents[2]


async def _run_with_kill(run_dir: Path, victim: str) -> dict:
    async with serve_test_site() as (base, _hits):
        rec = Recording(run_dir, task_id="crash", agent="script")
        await rec.start()
        try:
            async with async_playwright() as p:
                browser = await p.chromium.connect_over_cdp(rec.browser.http_url)
                page = browser.contexts[0].pages[0]
                await page.goto(base + "/")
                await page.click("#go")
                await wait_for(lambda: actions(run_dir, "click"), what="click")
                while rec.clock.now() < rec.ready_t + 2:  # some video before the kill
                    await asyncio.sleep(0.1)
                pid = rec.video.pid if victim == "ffmpeg" else rec.browser.pid
                os.kill(pid, signal.SIGKILL)
                if victim == "ffmpeg":  # only the video layer is lost: the browser goes on being recorded
                    await wait_for(lambda: "video" in rec.degraded, what="the video layer marked failed")
                    assert not rec.failed.is_set()
                    await page.click("text=Third")
                    await wait_for(lambda: len(actions(run_dir, "click")) >= 2, what="click after the kill")
                else:
                    await asyncio.wait_for(rec.failed.wait(), 10)
                await browser.close()
        finally:
            manifest = await rec.finalize("ok", "agent finished")
    return manifest


def _check_crashed_run(run_dir: Path, manifest: dict, needle: str) -> None:
    assert manifest["status"] == "crashed" and manifest["requested_status"] == "ok"
    assert needle in manifest["stop_reason"], manifest["stop_reason"]
    on_disk = json.loads((run_dir / "manifest.json").read_text())
    assert on_disk["status"] == "crashed" and on_disk["layers"]["actions"]["bad_lines"] == 0
    assert_all_jsonl_parse(run_dir)
    assert assert_video_plays(run_dir / "video.mp4") >= 2.0


def test_sigkill_ffmpeg_degrades_the_video_layer_only(tmp_path):
    """Losing ffmpeg loses the video from then on, not the run: status as asked, the layer marked failed, the video
    recorded before the kill kept."""
    manifest = asyncio.run(_run_with_kill(tmp_path, "ffmpeg"))
    assert manifest["status"] == "ok" and manifest["layers"]["video"]["failed"] == "ffmpeg killed by SIGKILL"
    assert_all_jsonl_parse(tmp_path)
    assert assert_video_plays(tmp_path / "video.mp4") >= 2.0
    assert len(actions(tmp_path, "click")) == 2


def test_sigkill_chromium(tmp_path):
    manifest = asyncio.run(_run_with_kill(tmp_path, "chromium"))
    _check_crashed_run(tmp_path, manifest, "Chromium killed by SIGKILL")
    assert_video_covers_run(tmp_path / "video.mp4", manifest)  # the display is recorded until finalize


AGENT = r"""
import json, os, sys
from playwright.sync_api import sync_playwright
log = open(os.environ["CLAWREC_AGENT_LOG"], "a")
log.write(json.dumps({"role": "assistant", "content": "opening the page"}) + "\n"); log.flush()
with sync_playwright() as p:
    page = p.chromium.connect_over_cdp(os.environ["CLAWREC_CDP_URL"]).contexts[0].pages[0]
    page.goto(os.environ["SITE"] + "/")
    page.click("#go")
    log.write(json.dumps({"role": "tool_call", "tool": "click", "content": {"selector": "#go"}}) + "\n"); log.flush()
    raise RuntimeError("the agent crashed on purpose")
"""


def test_agent_crash(tmp_path):
    async def run() -> tuple[dict, subprocess.CompletedProcess]:
        async with serve_test_site() as (base, _hits):
            rec = Recording(tmp_path, task_id="crash", agent="command")
            await rec.start()
            env = {**os.environ, "CLAWREC_AGENT_LOG": str(rec.agent_log_path), "CLAWREC_CDP_URL": rec.browser.http_url,
                   "SITE": base, "PYTHONPATH": str(REPO)}
            proc = await asyncio.create_subprocess_exec(sys.executable, "-c", AGENT, env=env,
                                                        stderr=asyncio.subprocess.PIPE)
            _, err = await asyncio.wait_for(proc.communicate(), 60)
            await wait_for(lambda: actions(tmp_path, "click"), what="the agent's click")
            manifest = await rec.finalize("agent_error", f"agent exited with code {proc.returncode}")
            return manifest, subprocess.CompletedProcess([], proc.returncode, b"", err)

    manifest, proc = asyncio.run(run())
    assert proc.returncode == 1 and b"crashed on purpose" in proc.stderr
    assert manifest["status"] == "agent_error" and manifest["stop_reason"] == "agent exited with code 1"
    agent, bad = read_jsonl(tmp_path / "agent.jsonl")
    assert not bad and [a["role"] for a in agent] == ["assistant", "tool_call"] and agent[1]["tool"] == "click"
    assert actions(tmp_path, "click")[0]["target"]["id"] == "go"
    assert_all_jsonl_parse(tmp_path)
    assert_video_plays(tmp_path / "video.mp4")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _start_child(run_dir: Path) -> tuple[subprocess.Popen, dict]:
    proc = subprocess.Popen([sys.executable, "-m", "tests.recorder.crash_child", str(run_dir)], cwd=REPO,
                            stdout=subprocess.PIPE, text=True)
    first = json.loads(proc.stdout.readline() or "{}")
    assert "pids" in first, "the recording child did not come up"
    t = first["t"]
    while t < 4:  # let it record a few seconds of video
        t = json.loads(proc.stdout.readline())["t"]
    return proc, {**first, "t": t}


def _wait_dead(pids: dict) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(p) for p in pids.values()):
        time.sleep(0.05)
    assert not [n for n, p in pids.items() if _alive(p)], "a layer process outlived the recorder"


def test_sigkill_clawrec_then_recover(tmp_path):
    proc, info = _start_child(tmp_path)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    _wait_dead(info["pids"])
    assert json.loads((tmp_path / "manifest.json").read_text())["status"] == "running"
    manifest = recover(tmp_path)
    assert manifest["status"] == "crashed" and "recorder process died" in manifest["stop_reason"]
    assert_all_jsonl_parse(tmp_path)
    duration = assert_video_plays(tmp_path / "video.mp4")
    covered = info["t"] - manifest["video_start_t"]  # first frame → the last heartbeat before the kill
    assert duration >= covered - 2.5, (duration, covered)  # all but the last few seconds
    agent, _ = read_jsonl(tmp_path / "agent.jsonl")
    assert [a["content"] for a in agent] == ["clicked go"]
    assert manifest["layers"]["actions"]["count"] >= 1 and manifest["layers"]["screenshots"]["count"] >= 1
    assert recover(tmp_path)["status"] == "crashed"  # idempotent


def test_sigterm_clawrec_writes_manifest(tmp_path):
    proc, info = _start_child(tmp_path)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == -signal.SIGTERM
    _wait_dead(info["pids"])
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["status"] == "crashed" and "SIGTERM" in manifest["stop_reason"]
    assert_video_covers_run(tmp_path / "video.mp4", manifest)
    assert_all_jsonl_parse(tmp_path)


def test_start_failure_writes_crashed_manifest_and_leaves_no_process(tmp_path, monkeypatch):
    import recorder.session as session

    monkeypatch.setattr(session, "EXTENSION_DIR", tmp_path / "no-extension-here")
    rec = Recording(tmp_path / "run", agent="script")

    async def start():
        with pytest.raises(session.RecordingError, match="extension not found"):
            await rec.start()

    asyncio.run(start())
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["status"] == "crashed" and "extension not found" in manifest["stop_reason"]
    assert not rec.display.alive() and not rec.video.alive()
    if (tmp_path / "run" / "video.mp4").exists():  # ffmpeg may have written a frame before the failure
        assert_video_plays(tmp_path / "run" / "video.mp4")


def test_lost_screenshot_connection_degrades_the_screenshots_layer_only(tmp_path):
    async def run() -> tuple[dict, bool]:
        rec = Recording(tmp_path, task_id="crash", agent="script", headless=True, video=False)
        await rec.start()
        try:
            await rec.screens.cdp.close()  # the screenshot connection is gone, the browser is not
            await wait_for(lambda: "screenshots" in rec.degraded, what="the screenshots layer marked failed")
            failed = rec.failed.is_set()
        finally:
            manifest = await rec.finalize("ok", "agent finished")
        return manifest, failed

    manifest, failed = asyncio.run(run())
    assert not failed and manifest["status"] == "ok"
    assert manifest["layers"]["screenshots"]["failed"] == "the screenshot connection was lost"


def test_a_chromium_that_cannot_start_leaves_its_log_in_the_run_dir(tmp_path):
    """Real Chromium refusing to start (`--remote-debugging-pipe` without its descriptors: it exits at once): the
    error names the log it kept in the run directory (the recorder's private copy is deleted at finalize), and the
    manifest says crashed with the same reason."""
    run_dir = tmp_path / "run"
    rec = Recording(run_dir, task_id="nolaunch", agent="script", headless=True, video=False,
                    extra_flags=["--remote-debugging-pipe"])
    with pytest.raises(RuntimeError) as err:
        asyncio.run(rec.start())
    kept = run_dir / "chromium-launch.log"
    assert re.fullmatch(r"Chromium exited with code \d+ before its DevTools port opened \(Chromium's own log: "
                        + re.escape(str(kept)) + r"\)", str(err.value)), str(err.value)
    assert "Remote debugging pipe file descriptors are not open" in kept.read_text()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "crashed" and str(kept) in manifest["stop_reason"]
