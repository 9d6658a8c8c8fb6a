"""console.jsonl from real Chromium: console calls, uncaught exceptions and browser log entries of the page and of
a cross-site iframe and a worker, on the run clock; secrets redacted; a page that logs in a loop is capped.
Console calls arrive as they happen (Console domain); uncaught exceptions are read when the interceptor closes
(interceptor/console.py: Runtime is never enabled while the run goes on), with the time they were thrown."""

from __future__ import annotations

import asyncio

from aiohttp import web
from playwright.async_api import async_playwright

from interceptor import console
from interceptor.core import Interceptor
from rundir.records import CONSOLE, RunClock, read_jsonl
from taskspec.model import Rule
from tests.interceptor.harness import make_spec

SECRET = "tok-Console-7Hq2Lw9Xs"
PAGE = """<!doctype html><html><body><p id=state>starting</p><script>
console.log('hello', 42, true, null, {a: 1});
console.error('failed: /api/x?access_token=abc123def and ' + new URLSearchParams(location.search).get('s'));
new Worker('/worker.js');
setTimeout(() => { throw new Error('boom in page'); }, 0);
fetch('/missing.png').catch(() => 0);
const f = document.createElement('iframe');
f.src = 'http://localhost:' + location.port + '/frame'; document.body.append(f);
window.addEventListener('message', () => { document.getElementById('state').textContent = 'done'; });
</script></body></html>"""
FRAME = "<script>console.info('from the iframe'); parent.postMessage('x', '*');</script>"
WORKER = "console.debug('from the worker');"


async def _serve() -> tuple[web.AppRunner, int]:
    async def handler(request: web.Request) -> web.StreamResponse:
        if request.path == "/":
            return web.Response(text=PAGE, content_type="text/html")
        if request.path == "/frame":
            return web.Response(text=FRAME, content_type="text/html")
        if request.path == "/worker.js":
            return web.Response(text=WORKER, content_type="text/javascript")
        return web.Response(status=404)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handler)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, site._server.sockets[0].getsockname()[1]


def _text(run_dir) -> str:
    p = run_dir / CONSOLE
    return p.read_text() if p.exists() else ""


def test_console_of_every_target_on_the_run_clock_redacted_and_capped(browser, tmp_path, monkeypatch):
    monkeypatch.setattr(console, "MAX_ENTRIES", 40)

    async def scenario() -> float:
        runner, port = await _serve()
        clock = RunClock()
        spec = make_spec([Rule(index=0, url=f"http://127.0.0.1:{port}/never", methods=("POST",))])
        icpt = Interceptor(spec, tmp_path, clock, kill_browser=browser.kill, secrets=[SECRET])
        try:
            await icpt.attach(browser.ws_url)
            async with async_playwright() as p:
                pw = await p.chromium.connect_over_cdp(browser.http_url)
                page = await pw.contexts[0].new_page()
                await page.goto(f"http://127.0.0.1:{port}/?s={SECRET}")
                await page.wait_for_function("document.getElementById('state').textContent === 'done'",
                                             timeout=30_000)
                # every target's entries are on disk (flushed within 0.2 s) before the page floods the console
                deadline = asyncio.get_running_loop().time() + 30
                while not all(w in _text(tmp_path) for w in ("from the iframe", "from the worker", "404")):
                    assert asyncio.get_running_loop().time() < deadline, _text(tmp_path)
                    await asyncio.sleep(0.1)
                await page.evaluate("() => { for (let i = 0; i < 60; i++) console.warn('spam ' + i); }")
                await asyncio.sleep(0.5)
                end = clock.now()
                await pw.close()
        finally:
            await icpt.close()
            await runner.cleanup()
        return end

    end = asyncio.run(scenario())
    records, bad = read_jsonl(tmp_path / CONSOLE)
    assert bad == [] and len(records) == 42  # 40 kept, the exception (read at close: not capped by the flood), the note
    assert sum(1 for r in records if r["text"] == "from the worker") == 1  # not again as the page's echo
    text = {r["text"]: r for r in records}
    hello = "hello 42 true null [object Object]"  # the Console domain's text: no argument is serialized
    assert text[hello]["level"] == "log" and text[hello]["target"] == "page"
    assert "failed: /api/x?access_token=[redacted] and [redacted]" in text
    boom = next(r for r in records if r["kind"] == "exception" and "boom in page" in r["text"])
    assert boom["target"] == "page" and boom["t"] < text["from the iframe"]["t"] + 5  # thrown early, read at close
    assert any(r["kind"] == "log" and r.get("source") == "network" and "404" in r["text"] for r in records)
    assert text["from the iframe"]["target"] == "iframe" and text["from the worker"]["target"] == "worker"
    assert all(0 < r["t"] <= end + 1 for r in records[:-1])
    assert records[-1]["text"].startswith("clawrec: ") and "more console entries not recorded" in records[-1]["text"]
    assert SECRET not in (tmp_path / CONSOLE).read_text() and "abc123def" not in (tmp_path / CONSOLE).read_text()
