"""The action channel: token required, acks make re-sends harmless, page scripts cannot inject events."""

from __future__ import annotations

import asyncio
import json

import websockets
from playwright.async_api import async_playwright

from recorder.channel import ActionChannel
from rundir.records import JsonlWriter, RunClock, read_jsonl
from recorder.session import Recording
from tests.recorder.helpers import actions, serve_test_site, wait_for


def test_channel_requires_token_and_dedupes_batches(tmp_path):
    async def run() -> tuple[ActionChannel, list]:
        clock = RunClock()
        seen: list[dict] = []
        with JsonlWriter(tmp_path / "actions.jsonl", clock) as writer:
            chan = ActionChannel(writer, clock, on_action=seen.append, token="tok-123")
            port = await chan.start()
            url = f"ws://127.0.0.1:{port}/"
            async with websockets.connect(url) as ws:  # no token: closed with 4401, nothing written
                await ws.send(json.dumps({"type": "hello", "client": "x"}))
                await ws.send(json.dumps({"type": "events", "batch": 1, "events": [{"type": "click"}]}))
                try:
                    await asyncio.wait_for(ws.recv(), 5)
                except websockets.ConnectionClosed as exc:
                    assert exc.rcvd.code == 4401
            async with websockets.connect(url) as ws:
                await ws.send(json.dumps({"type": "hello", "token": "tok-123", "client": "c1"}))
                assert json.loads(await ws.recv()) == {"type": "welcome"}
                batch = {"type": "events", "token": "tok-123", "client": "c1", "batch": 1, "dropped": 2,
                         "events": [{"type": "click", "x": 1, "y": 2, "ts": (clock.t0 + 0.002) * 1000}]}
                for _ in range(2):  # the worker re-sends a batch whose ack it lost
                    await ws.send(json.dumps(batch))
                    assert json.loads(await ws.recv()) == {"type": "ack", "batch": 1}
                await ws.send(json.dumps({**batch, "token": "wrong", "batch": 2}))
                try:
                    await asyncio.wait_for(ws.recv(), 5)
                except websockets.ConnectionClosed as exc:
                    assert exc.rcvd.code == 4401
            await chan.stop()
        return chan, seen

    chan, seen = asyncio.run(run())
    recs, bad = read_jsonl(tmp_path / "actions.jsonl")
    assert not bad and [r["type"] for r in recs] == ["click", "dropped"]
    assert recs[0] == {"t": 0.002, "seq": 1, "type": "click", "x": 1, "y": 2} and recs[1]["count"] == 2
    assert seen == recs
    assert chan.stats["rejected"] == 2 and chan.stats["duplicates"] == 1 and chan.stats["dropped"] == 2


def test_page_script_cannot_inject_events(tmp_path):
    async def run() -> dict:
        async with serve_test_site() as (base, _hits):
            rec = Recording(tmp_path, agent="script", headless=True, video=False)
            await rec.start()
            try:
                async with async_playwright() as p:
                    browser = await p.chromium.connect_over_cdp(rec.browser.http_url)
                    page = browser.contexts[0].pages[0]
                    await page.goto(f"{base}/spoof?port={rec.channel.port}")
                    await page.wait_for_function("document.getElementById('state').textContent.startsWith('done')",
                                                 timeout=30000)
                    state = await page.text_content("#state")
                    await page.click("#state")  # the real channel still works after the attempts
                    await wait_for(lambda: actions(tmp_path, "click"), what="the genuine click")
                    await browser.close()
            finally:
                manifest = await rec.finalize("ok", "done")
        return {"state": state, "manifest": manifest}

    out = asyncio.run(run())
    assert out["state"] == "done 4401,4401,4401", out["state"]
    assert out["manifest"]["recorder"]["channel"]["rejected"] >= 3
    text = (tmp_path / "actions.jsonl").read_text()
    assert "SPOOF-MARKER" not in text and '"spoofed"' not in text
    assert actions(tmp_path, "click")[0]["target"]["id"] == "state"


def test_events_queue_while_the_channel_is_down(tmp_path):
    """The recorder's socket goes away mid-run: the extension keeps the events and delivers them, in order and
    once each, when the channel listens again on the configured port."""
    async def run() -> dict:
        async with serve_test_site() as (base, _hits):
            rec = Recording(tmp_path, agent="script", headless=True, video=False)
            await rec.start()
            try:
                async with async_playwright() as p:
                    browser = await p.chromium.connect_over_cdp(rec.browser.http_url)
                    page = browser.contexts[0].pages[0]
                    await page.goto(base + "/")
                    await page.click("#go")
                    await wait_for(lambda: actions(tmp_path, "click"), what="first click")
                    port = rec.channel.port
                    await rec.channel.stop()
                    for name in ("Second", "Third"):
                        await page.click(f"text={name}")
                    assert len(actions(tmp_path, "click")) == 1  # nothing can arrive while nobody listens
                    await rec.channel.start(port)
                    await wait_for(lambda: len(actions(tmp_path, "click")) == 3, timeout=20, what="queued clicks")
                    await browser.close()
            finally:
                manifest = await rec.finalize("ok", "done")
        return manifest

    manifest = asyncio.run(run())
    clicks = actions(tmp_path, "click")
    assert [c["target"]["name"] for c in clicks] == ["Go", "Second", "Third bold"]
    assert [c["t"] for c in clicks] == sorted(c["t"] for c in clicks)
    assert manifest["recorder"]["channel"]["authenticated"] >= 2 and manifest["recorder"]["channel"]["dropped"] == 0


def test_navigation_before_the_extension_connects_is_recorded(tmp_path):
    """The start page is opened at once after start(), before the extension's worker has run: its navigation and
    load are still in actions.jsonl (from the worker's first snapshot if not live) and the page gets a shot."""
    async def run() -> None:
        async with serve_test_site() as (base, _hits):
            rec = Recording(tmp_path, agent="script", headless=True, video=False)
            await rec.start()
            try:
                async with async_playwright() as p:
                    browser = await p.chromium.connect_over_cdp(rec.browser.http_url)
                    await browser.contexts[0].pages[0].goto(base + "/")
                    assert await rec.wait_extension(20)
                    await wait_for(lambda: [a for a in actions(tmp_path, "load") if a["url"] == base + "/"],
                                   what="the start page's load")
                    await wait_for(lambda: any(s["action_type"] == "load" for s in
                                               read_jsonl(tmp_path / "screenshots/screenshots.jsonl")[0]),
                                   what="its screenshot")
                    await browser.close()
            finally:
                await rec.finalize("ok", "done")

    asyncio.run(run())
    assert [a for a in actions(tmp_path, "navigate") if a["url"].endswith("/") and a["frame"] == 0]
