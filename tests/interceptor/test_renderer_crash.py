"""A renderer that dies under a page is recorded (console.jsonl `kind: crash`, on the run clock, with the target),
even after a page flooded the console past its caps (issue 36: a renderer kill -9 was in no layer). Real Chromium;
every renderer of the browser's process group (`--type=renderer`: the page's is among them; which one is Chromium's
choice, a spare is often reused) is killed by SIGKILL."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

from interceptor import console
from interceptor.core import Interceptor
from recorder.browser import launch_browser
from rundir.records import CONSOLE, RunClock, read_jsonl
from taskspec.model import Rule
from tests.interceptor.harness import make_spec
from tests.support.loopback import LoopbackSite

PAGE = "<!doctype html><p>flood</p><script>for (let i = 0; i < 50; i++) console.log('flood ' + i);</script>"


def _renderers(browser_pid: int) -> set[int]:
    found = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()  # Chromium rewrites it: one space-joined string
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if (b"--type=renderer" in cmd and b"--top-chrome-webui" not in cmd and os.getpgid(int(pid)) == browser_pid
                and stat[0] != "Z"):
            found.add(int(pid))
    return found


def test_a_killed_renderer_is_recorded_past_the_console_caps(tmp_path, monkeypatch):
    monkeypatch.setattr(console, "MAX_ENTRIES", 10)  # the page's flood fills the layer first
    browser = launch_browser(headless=True)
    site = LoopbackSite(lambda method, path, body: ("text/html", PAGE.encode()))

    async def scenario() -> tuple[float, float]:
        clock = RunClock()
        icpt = Interceptor(make_spec([Rule(index=0, url=f"{site.url}never", methods=("POST",))]), tmp_path / "run",
                           clock, kill_browser=browser.kill)
        try:
            await icpt.attach(browser.ws_url)
            await icpt.conn.root.call("Target.createTarget", {"url": site.url})
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 30
            while icpt.console.dropped < 40:  # the flood arrived and was capped
                assert loop.time() < deadline, icpt.console.count
                await asyncio.sleep(0.05)
            renderers = _renderers(browser.pid)
            assert renderers, "no renderer for the page"
            killed_at = clock.now()
            for pid in renderers:
                os.kill(pid, signal.SIGKILL)
            while not any(r.get("kind") == "crash" and r.get("target_url") == site.url
                          for r in read_jsonl(tmp_path / "run" / CONSOLE)[0]):
                assert loop.time() < deadline, "the crash was never reported"
                await asyncio.sleep(0.05)
            assert browser.alive(), "a renderer crash must not take the browser (or the run) down"
            return killed_at, clock.now()
        finally:
            await icpt.close()

    try:
        killed_at, seen = asyncio.run(scenario())
    finally:
        browser.close()
        site.close()
    records, bad = read_jsonl(tmp_path / "run" / CONSOLE)
    assert not bad and len([r for r in records if r["kind"] == "console"]) == 10
    crashes = [r for r in records if r["kind"] == "crash" and r["target_url"] == site.url]
    assert len(crashes) == 1 and crashes[0]["target"] == "page" and crashes[0]["level"] == "error", records
    assert killed_at <= crashes[0]["t"] <= seen
