"""http.jsonl joins a request's Network events across sessions (interceptor/netjoin.py): a dedicated worker's script
(announced on its page's session, answered and finished on the worker's) and a cross-site iframe's document
(announced on its parent's, finished on the iframe's) are logged once, with their status and headers, in http.jsonl
and http.har, never as `incomplete`. Real Chromium (site-per-process), the channel server of tests/interceptor."""

from __future__ import annotations

import json

import pytest

from interceptor.core import Interceptor
from rundir.records import HAR, HTTP, read_jsonl
from tests.interceptor.harness import Harness, channel_rules, make_spec, wait_until


@pytest.fixture(scope="module")
def h():
    harness = Harness().start()
    yield harness
    harness.stop()


def _answered(records: list[dict], url: str) -> bool:
    return any(r.get("url") == url and (r.get("response") or {}).get("status") for r in records)


async def _load(h: Harness, run_dir, worker: str, doc: str) -> Interceptor:
    icpt = Interceptor(make_spec(channel_rules(h.server)), run_dir)
    await icpt.attach(h.browser.ws_url)
    ctx = await h.pw_browser.new_context()
    try:
        page = await ctx.new_page()
        for start, url in (("dedicated_worker", worker), ("xsite_iframe", doc)):
            await page.goto(f"{h.server.base}/ch/{start}")
            assert await wait_until(lambda: _answered(icpt.http.records, url)), \
                [(r.get("url"), r.get("response"), r.get("incomplete")) for r in icpt.http.records]
    finally:
        await ctx.close()
        await icpt.close()
    return icpt


def test_worker_script_and_cross_site_iframe_are_logged_with_their_status(h, tmp_path):
    worker = f"{h.server.base}/worker.js?ch=dedicated_worker"
    doc = f"{h.server.other}/frame/xsite_iframe"
    icpt = h.run(_load(h, tmp_path, worker, doc))
    assert icpt.failure is None
    records, bad = read_jsonl(tmp_path / HTTP)
    assert not bad
    for url, mime in ((worker, "application/javascript"), (doc, "text/html")):
        got = [r for r in records if r.get("type") == "request" and r["url"] == url]
        assert len(got) == 1, (url, got)  # one record, not one per session
        rec = got[0]
        assert not rec.get("incomplete") and not rec.get("error"), rec
        assert rec["response"]["status"] == 200 and rec["response"]["mime"] == mime, rec
        headers = {k.lower(): v for k, v in rec["response"]["headers"].items()}
        assert headers["content-type"].startswith(mime), headers
        assert rec["size"] and rec["size"] > 0
    assert records[[r.get("url") for r in records].index(worker)]["target"] == "page"  # who sent it: the page
    entries = json.loads((tmp_path / HAR).read_text())["log"]["entries"]
    for url in (worker, doc):
        statuses = [e["response"]["status"] for e in entries if e["request"]["url"] == url]
        assert statuses == [200], (url, statuses)
