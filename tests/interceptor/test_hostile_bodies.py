"""Issue 16 with real Chromium: bodies a hostile page sends (200k-deep JSON to the terminal URL) and bodies Chrome
does not hand over (a large upload, a multipart file). The test server's own log is the truth."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from aiohttp import web

from interceptor.core import Interceptor
from rundir.records import HAR, HTTP, INTERCEPTIONS, read_jsonl
from taskspec.model import Rule
from tests.interceptor.channels import ChannelServer
from tests.interceptor.harness import Harness, make_spec, wait_until

DEPTH = 200_000
PAGE = """<!doctype html><html><body><form id=f method=post action=/upload enctype=multipart/form-data>
<input type=file name=resume id=file><input name=note value=hi></form><script>
window.deep = () => fetch('/api/submit', {method: 'POST', headers: {'Content-Type': 'application/json'},
  body: '['.repeat(%(depth)d) + ']'.repeat(%(depth)d)}).catch(() => 'blocked');
window.big = () => fetch('/upload-big', {method: 'POST', headers: {'Content-Type': 'application/octet-stream'},
  body: new Uint8Array(%(big)d)}).then(r => r.status);
window.form = () => { const fd = new FormData(document.getElementById('f'));
  return fetch('/upload', {method: 'POST', body: fd}).then(r => r.status); };
</script></body></html>"""
BIG = 300_000  # over the HTTP layer's maxPostDataSize (64 KB): Chrome leaves the bytes out of Network events


class Site(ChannelServer):
    """The channel suite's server with this module's page; `log` keeps each request's body size."""

    async def handle(self, request: web.Request) -> web.Response:
        body = await request.read()
        self.log.append({"method": request.method, "path": request.path, "size": len(body)})
        if request.path == "/":
            return web.Response(text=PAGE % {"depth": DEPTH, "big": BIG}, content_type="text/html")
        return web.json_response({"ok": True})


@pytest.fixture(scope="module")
def h():
    harness = Harness().start()
    site = Site()
    runner = harness.run(site.start())
    harness.site = site
    yield harness
    harness.run(runner.cleanup())
    harness.stop()


def test_deep_json_to_the_terminal_url_is_blocked_and_kept_raw(h, tmp_path):
    """Before: `run crashed: decide:…: RecursionError`, exit 1 (a page could abort an evaluation)."""
    base = f"http://127.0.0.1:{h.site.port}"
    rule = Rule(index=0, url=f"{base}/api/submit", methods=("POST",), fields=("order",))

    async def go() -> tuple[Interceptor, Any]:
        icpt = Interceptor(make_spec([rule]), tmp_path, kill_browser=h.browser.kill, watchdog=False)
        await icpt.attach(h.browser.ws_url)
        page = await h.pw_browser.contexts[0].new_page()
        try:
            await page.goto(base + "/")
            result = await page.evaluate("deep()")
            await wait_until(lambda: icpt.catches)
        finally:
            await page.close()
            await icpt.close()
        return icpt, result

    icpt, result = h.run(go())
    assert icpt.failure is None and result == "blocked"
    assert not [e for e in h.site.log if e["path"] == "/api/submit"]
    (catch,), bad = read_jsonl(tmp_path / INTERCEPTIONS)
    assert not bad and catch["decode"] == "too deep" and catch["undecidable"] is True and catch["body"] is None
    assert catch["action"] == "blocked" and catch["raw"].startswith("[[[[") and catch["body_kind"] == "json"


def test_bodies_chrome_leaves_out_are_unavailable_not_empty(h, tmp_path):
    """Before: a 20 MB upload (and a multipart form with a file) was logged as `{"kind": "empty", "size": 0}`."""
    base = f"http://127.0.0.1:{h.site.port}"
    upload = tmp_path / "resume.pdf"
    upload.write_bytes(b"%PDF-1.4\n" + os.urandom(100_000))
    rule = Rule(index=0, url=f"{base}/never", methods=("POST",))

    async def go() -> Interceptor:
        icpt = Interceptor(make_spec([rule]), tmp_path / "run", kill_browser=h.browser.kill, watchdog=False)
        await icpt.attach(h.browser.ws_url)
        page = await h.pw_browser.contexts[0].new_page()
        try:
            await page.goto(base + "/")
            await page.set_input_files("#file", str(upload))
            assert await page.evaluate("big()") == 200
            assert await page.evaluate("form()") == 200
            await wait_until(lambda: icpt.http is not None and len([r for r in icpt.http.records
                                                                     if r.get("method") == "POST"]) >= 2)
        finally:
            await page.close()
            await icpt.close()
        return icpt

    h.run(go())
    sizes = {e["path"]: e["size"] for e in h.site.log if e["method"] == "POST"}
    records, _bad = read_jsonl(tmp_path / "run" / HTTP)
    posts = {r["url"].rsplit("/", 1)[1]: r["body"] for r in records if r.get("method") == "POST"}
    assert posts["upload-big"] == {"kind": "unavailable", "size": BIG, "complete": False}
    har = json.loads((tmp_path / "run" / HAR).read_text())["log"]["entries"]
    assert [e["request"]["bodySize"] for e in har if e["request"]["url"].endswith("/upload-big")] == [BIG]
    # Chrome hands a multipart form with a file to Network events without any bytes (measured): no names to give.
    assert posts["upload"] == {"kind": "unavailable", "size": sizes["/upload"], "complete": False}
