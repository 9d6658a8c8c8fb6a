"""`ignore_urls` leaves the recorder's own traffic out of the HTTP log (never out of matching: an ignored URL that a
rule names is still blocked), and `secrets` never reach a run file, whatever carries them (URL, body, WS frame,
response body). Response bodies of XHR/Fetch (not the page's HTML) are recorded in http.jsonl and http.har, capped, with fields
named like secrets masked."""

from __future__ import annotations

import asyncio
import json

import pytest

from aiohttp import WSMsgType, web
from playwright.async_api import async_playwright

from interceptor.core import Interceptor
from interceptor.respbody import RESPONSE_CAP
from taskspec.model import Rule
from rundir.records import HAR, HTTP, INTERCEPTIONS, RunClock, read_jsonl
from tests.interceptor.harness import make_spec

SECRET = "tok-Zq8Xv3LmN4pR7sT1uW0yB"
ACCESS_TOKEN = "at-9f8e7d6c5b4a"  # a response field named like a secret: masked by name
BIG = {"rows": ["x" * 100] * (RESPONSE_CAP // 100 + 10)}  # over the cap: `too large`, never read

PAGE = """<!doctype html><html><body><p id="state">starting</p><script>
const secret = new URLSearchParams(location.search).get('s');
function socket(path, message) {
  return new Promise((resolve) => {
    const ws = new WebSocket('ws://' + location.host + path);
    ws.onopen = () => ws.send(message);
    ws.onmessage = () => { ws.close(); resolve(); };
    ws.onerror = () => resolve();
  });
}
(async () => {
  await socket('/own/ws', JSON.stringify({type: 'hello', token: secret}));
  await socket('/ws', 'site frame ' + secret);
  await fetch('/api/data?k=' + secret, {method: 'POST', body: JSON.stringify({note: secret})});
  await (await fetch('/api/account')).json();
  await (await fetch('/api/big')).json();
  let blocked = 'no';
  try { await fetch('/own/submit', {method: 'POST', headers: {'Content-Type': 'application/json'},
                                     body: JSON.stringify({x: 1})}); } catch (e) { blocked = 'yes'; }
  document.getElementById('state').textContent = 'done blocked=' + blocked;
})();
</script></body></html>"""


async def _serve(hits: list) -> tuple[web.AppRunner, int]:
    async def handler(request: web.Request) -> web.StreamResponse:
        if request.path.endswith("/ws"):
            ws = web.WebSocketResponse()
            await ws.prepare(request)
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    hits.append(("WS " + request.path, msg.data))
                    await ws.send_str("ok")
            return ws
        hits.append((request.method + " " + request.path, await request.text()))
        if request.path == "/":
            return web.Response(text=PAGE, content_type="text/html")
        if request.path == "/api/account":
            return web.json_response({"user": {"name": "Alex Doe", "access_token": ACCESS_TOKEN},
                                      "echo": f"your key is {SECRET}"})
        if request.path == "/api/big":
            return web.json_response(BIG)
        return web.json_response({"ok": True})

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handler)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, site._server.sockets[0].getsockname()[1]


async def _scenario(browser, run_dir) -> tuple[list, Interceptor, str]:
    hits: list = []
    runner, port = await _serve(hits)
    base = f"http://127.0.0.1:{port}"
    spec = make_spec([Rule(index=0, url=f"{base}/own/submit", methods=("POST",), fields=("x",))])
    icpt = Interceptor(spec, run_dir, RunClock(), kill_browser=browser.kill,
                       ignore_urls=[f"ws://127.0.0.1:{port}/own/", f"{base}/own/"], secrets=[SECRET])
    try:
        await icpt.attach(browser.ws_url)
        async with async_playwright() as p:
            pw = await p.chromium.connect_over_cdp(browser.http_url)
            page = await pw.contexts[0].new_page()
            await page.goto(f"{base}/?s={SECRET}")
            await page.wait_for_function("document.getElementById('state').textContent.startsWith('done')",
                                         timeout=30_000)
            state = await page.text_content("#state")
            await pw.close()
    finally:
        await icpt.close()
        await runner.cleanup()
    return hits, icpt, state or ""


def test_ignored_urls_are_not_logged_but_still_matched_and_secrets_scrubbed(browser, tmp_path):
    hits, icpt, state = asyncio.run(_scenario(browser, tmp_path))
    # the page really sent the secret everywhere (the server saw it), and the ignored terminal POST was blocked
    assert any(k == "WS /own/ws" and SECRET in v for k, v in hits)
    assert any(k == "WS /ws" and SECRET in v for k, v in hits)
    assert not [k for k, _ in hits if k == "POST /own/submit"]
    assert state == "done blocked=yes"
    assert [c["url"] for c in icpt.catches] == [icpt.spec.intercept[0].url]

    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), f"{path.name} holds the secret"
    records, bad = read_jsonl(tmp_path / HTTP)
    assert not bad
    assert not [r for r in records if "/own/" in str(r.get("url"))], "an ignored URL was logged"
    assert icpt.http is not None and icpt.http.ignored >= 3  # own ws created + its frames + the POST
    site_ws = [r for r in records if r.get("type") == "websocket" and str(r.get("url")).endswith("/ws")]
    assert {r["event"] for r in site_ws} >= {"created", "sent", "received"}
    assert any(r.get("payload") == "site frame [redacted]" for r in site_ws)
    api = [r for r in records if r.get("type") == "request" and "/api/data" in r["url"]]
    assert api and api[0]["url"].endswith("k=[redacted]") and "[redacted]" in json.dumps(api[0]["body"])
    har = json.loads((tmp_path / HAR).read_text())
    assert any(e["request"]["url"].endswith("k=[redacted]") for e in har["log"]["entries"])
    assert not [e for e in har["log"]["entries"] if "/own/" in e["request"]["url"]]
    catches, _ = read_jsonl(tmp_path / INTERCEPTIONS)
    assert len(catches) == 1 and catches[0]["body"] == {"x": 1}

    # response bodies: the JSON API's body (secret-named field masked, the spec's secret value scrubbed), the big
    # one only its size; in http.har as response.content.text
    by_path = {r["url"].split("/", 3)[3].split("?")[0]: r for r in records if r.get("type") == "request"}
    account = by_path["api/account"]["response"]["body"]
    assert account["kind"] == "json" and account["value"] == {
        "user": {"name": "Alex Doe", "access_token": "[redacted]"}, "echo": "your key is [redacted]"}
    big = by_path["api/big"]["response"]["body"]
    assert big == {"kind": "too large", "size": pytest.approx(len(json.dumps(BIG)), abs=100)}
    assert big["size"] > RESPONSE_CAP
    assert by_path["api/data"]["response"]["body"]["value"] == {"ok": True}
    assert "body" not in by_path[""]["response"]  # a page's HTML: not recorded (tokens no name tells)
    assert ACCESS_TOKEN.encode() not in (tmp_path / HTTP).read_bytes() + (tmp_path / HAR).read_bytes()
    content = {e["request"]["url"].split("/", 3)[3].split("?")[0]: e["response"]["content"]
               for e in har["log"]["entries"]}
    assert json.loads(content["api/account"]["text"]) == account["value"]
    assert "text" not in content["api/big"] and "too large" in content["api/big"]["comment"]
