"""Real Chromium + extension: the start page is recorded once, in `t` order, while screenshots of fast clicks are
taken at once (never held back by the snapshot handling); finalize while actions keep arriving or while a capture
hangs leaves a consistent screenshots.jsonl (one record per shot asked for) and no stray task exception."""

from __future__ import annotations

import asyncio
import gc
import logging
from pathlib import Path

from playwright.async_api import async_playwright

from rundir.records import read_jsonl
from recorder.session import Recording
from tests.recorder.helpers import actions, serve_test_site, wait_for

BUSY_CLICK = """() => { const el = document.createElement('div'); el.id = 'busy'; el.textContent = 'Busy';
  el.style = 'position:fixed;top:0;right:0;width:120px;height:60px;background:#fc0';
  el.addEventListener('click', () => { const end = Date.now() + 6000; while (Date.now() < end) {} });
  document.body.appendChild(el); }"""


def shots(run_dir: Path) -> list[dict]:
    recs, bad = read_jsonl(run_dir / "screenshots/screenshots.jsonl")
    assert not bad
    return recs


def assert_consistent(run_dir: Path) -> list[dict]:
    """actions.jsonl in `t` order with seq = line number; every screenshot record links to an action of its type,
    its file exists, and every file on disk is indexed."""
    recs, bad = read_jsonl(run_dir / "actions.jsonl")
    assert not bad and recs
    assert [r["seq"] for r in recs] == list(range(1, len(recs) + 1))
    assert [r["t"] for r in recs] == sorted(r["t"] for r in recs)
    by_seq = {r["seq"]: r for r in recs}
    index = shots(run_dir)
    for s in index:
        assert s["action_seq"] in by_seq and by_seq[s["action_seq"]]["type"] == s["action_type"], s
        assert s["path"] is None or (run_dir / s["path"]).is_file(), s
    on_disk = {p.name for p in (run_dir / "screenshots").glob("*.jpg")}
    assert on_disk == {Path(s["path"]).name for s in index if s["path"]}
    return recs


def handled(rec: Recording, run_dir: Path) -> int:
    """Snapshot records received so far: written, or dropped as the twin of one already kept."""
    written = [r for r in read_jsonl(run_dir / "actions.jsonl")[0] if r.get("initial")]
    return len(written) + rec.channel.stats.get("snapshot_duplicates", 0)


def no_stray_task_errors(caplog) -> None:
    gc.collect()  # a task destroyed with an unretrieved exception is reported now
    text = caplog.text
    assert "never retrieved" not in text and "is closed" not in text, text
    assert not [r for r in caplog.records if r.name.startswith("recorder") and r.levelno >= logging.ERROR], text


def test_start_page_once_in_t_order_and_fast_clicks_shot_at_once(tmp_path, caplog):
    """The start page opens before the extension's worker runs (as in the pipeline): its navigate and load are in
    actions.jsonl once each. Clicks right after the worker connects (while its snapshot is being handled) are shot
    within 0.5 s of the click on the run clock."""
    caplog.set_level(logging.ERROR)

    async def run() -> str:
        async with serve_test_site() as (base, _hits):
            rec = Recording(tmp_path, agent="script", headless=True, video=False)
            await rec.start()
            try:
                async with async_playwright() as p:
                    browser = await p.chromium.connect_over_cdp(rec.browser.http_url)
                    page = browser.contexts[0].pages[0]
                    await page.goto(base + "/")
                    assert await rec.wait_extension(20)
                    for sel in ("#go", "text=Second", "text=Third", "#go"):
                        await page.click(sel)
                    await wait_for(lambda: len([s for s in shots(tmp_path) if s["action_type"] == "click"]) >= 4,
                                   timeout=20, what="the clicks' screenshots")
                    # The worker's snapshot once more, now that the live events are recorded: the same state again
                    # (tab, navigate, load), reported after them, as when the worker's first look races the start
                    # page's commit. Nothing of it may be written twice.
                    known = handled(rec, tmp_path)
                    worker = browser.contexts[0].service_workers[0]
                    await worker.evaluate("chrome.storage.session.remove('snapshot').then(snapshotTabs)")
                    await wait_for(lambda: handled(rec, tmp_path) >= known + 3, what="the repeated snapshot")
                    await browser.close()
            finally:
                await rec.finalize("ok", "done")
        return base + "/"

    start = asyncio.run(run())
    recs = assert_consistent(tmp_path)
    assert len([r for r in recs if r["type"] == "navigate" and r["url"] == start and r.get("frame") == 0]) == 1
    assert len([r for r in recs if r["type"] == "load" and r["url"] == start]) == 1
    assert len([r for r in recs if r["type"] == "tab_open"]) == 1
    clicks = [r for r in recs if r["type"] == "click"]
    assert len(clicks) == 4
    for click in clicks:
        mine = [s for s in shots(tmp_path) if s["action_seq"] == click["seq"]]
        assert len(mine) == 1 and mine[0]["path"], (click, mine)
        assert -0.05 <= mine[0]["t"] - click["t"] <= 0.5, (click["t"], mine[0])  # page vs run clock: ms apart
    no_stray_task_errors(caplog)


def test_finalize_while_actions_keep_arriving(tmp_path, caplog):
    """Clicks keep coming (for ~5 s) while finalize runs: every click that asked for a shot has exactly one record
    (a file or why not), those arriving once the screenshots stopped are counted as skipped, nothing is written
    after the index closed."""
    caplog.set_level(logging.ERROR)

    async def run() -> dict:
        async with serve_test_site() as (base, _hits):
            rec = Recording(tmp_path, agent="script", headless=True, video=False)
            await rec.start()
            try:
                async with async_playwright() as p:
                    browser = await p.chromium.connect_over_cdp(rec.browser.http_url)
                    page = browser.contexts[0].pages[0]
                    await page.goto(base + "/")
                    assert await rec.wait_extension(20)
                    await page.evaluate("""() => { let n = 0; const go = document.getElementById('go');
                        const id = setInterval(() => { go.click(); if (++n >= 80) clearInterval(id); }, 60); }""")
                    await wait_for(lambda: rec.channel.stats["events"] and rec.screens.tasks, what="clicks arriving")
            finally:
                manifest = await rec.finalize("ok", "done")
        return manifest

    manifest = asyncio.run(run())
    no_stray_task_errors(caplog)
    recs = assert_consistent(tmp_path)
    clicks = [r for r in recs if r["type"] == "click"]
    click_shots = [s for s in shots(tmp_path) if s["action_type"] == "click"]
    assert clicks and len({s["action_seq"] for s in click_shots}) == len(click_shots)
    assert len(click_shots) + manifest["recorder"]["screenshots"]["skipped"] == len(clicks)


def test_finalize_during_a_capture_that_hangs(tmp_path, caplog):
    """The page's main thread is busy for 6 s right after a click, so the click's capture cannot finish: finalize
    waits for it (bounded), then cancels it, and the click's record says why there is no image."""
    caplog.set_level(logging.ERROR)

    async def run() -> float:
        async with serve_test_site() as (base, _hits):
            rec = Recording(tmp_path, agent="script", headless=True, video=False)
            await rec.start()
            try:
                async with async_playwright() as p:
                    browser = await p.chromium.connect_over_cdp(rec.browser.http_url)
                    page = browser.contexts[0].pages[0]
                    await page.goto(base + "/")
                    assert await rec.wait_extension(20)
                    await page.evaluate(BUSY_CLICK)
                    await wait_for(lambda: any(s["action_type"] == "load" for s in shots(tmp_path))
                                   and not rec.screens.tasks, what="the start page's shot")
                    clicking = asyncio.create_task(page.click("#busy", no_wait_after=True))
                    await wait_for(lambda: rec.screens.tasks, what="the click's capture under way")
                    loop = asyncio.get_running_loop()
                    began = loop.time()
                    await rec.finalize("ok", "done")
                    took = loop.time() - began
                    clicking.cancel()
                    await asyncio.gather(clicking, return_exceptions=True)
            finally:
                await rec.finalize("ok", "done")
        return took

    took = asyncio.run(run())
    assert took < 12
    recs = assert_consistent(tmp_path)
    busy = [r for r in recs if r["type"] == "click" and r["target"]["id"] == "busy"]
    assert len(busy) == 1
    mine = [s for s in shots(tmp_path) if s["action_seq"] == busy[0]["seq"]]
    assert len(mine) == 1 and mine[0]["path"] is None and "finalized" in mine[0]["error"], mine
    no_stray_task_errors(caplog)
