"""A shop behind the common pass-through service worker (`install → skipWaiting`, `activate → clients.claim`,
`fetch → e.respondWith(fetch(e.request))`), on two loopback origins (the shop and its stock API): what a frozen-web
replay must answer from the archive when every request of the product page is the WORKER's (issue 35 item 1).

The home page registers the worker and, once it controls the page, shows a link to the product page; that
navigation and everything the product page asks for go through the worker's fetch handler: the page, its image,
a cross-origin JSON API with a custom header (a CORS preflight, sent by the worker), a search POST, and a `Range`
request. The product page enables its Order button only when every answer arrived and checked out. Each server's
`log` is the truth of what left the browser."""

from __future__ import annotations

import json
import re
import secrets
from typing import Any

from tests.loopback_site import Answer, LoopbackSite

WORKER = b"""// the pass-through worker most PWAs ship (Workbox's shape without the caches)
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (e) => e.respondWith(fetch(e.request)));
"""

HOME = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Harbor Lamps</title></head><body>
<h1>Harbor Lamps</h1><p id="sw">installing</p>
<script>
function ready() { document.getElementById('sw').innerHTML = '<a id="product" href="/product/lamp">Harbor lamp</a>'; }
if (navigator.serviceWorker.controller) ready();
else {
  navigator.serviceWorker.addEventListener('controllerchange', ready);
  navigator.serviceWorker.register('/sw.js');
}
</script></body></html>"""

PRODUCT = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Harbor lamp</title>
<meta name="csrf-token" content="{csrf}"><meta name="stock-api" content="{api}"></head><body>
<h1>Harbor lamp</h1><img id="photo" src="/static/lamp.png" alt="lamp" width="16" height="16">
<p id="stock"></p><p id="hits"></p><p id="manual"></p><p id="status">loading</p>
<button id="order" type="button" disabled>Order</button>
<script src="/static/product.js"></script></body></html>"""

SCRIPT = b"""// product.js: every answer must arrive (through the worker) before the Order button is enabled
const csrf = document.querySelector('meta[name=csrf-token]').content;
const api = document.querySelector('meta[name=stock-api]').content;
const img = document.getElementById('photo');
const loaded = img.complete && img.naturalWidth ? Promise.resolve() :
  new Promise((ok, bad) => { img.onload = ok; img.onerror = () => bad(new Error('image')); });
async function main() {
  const stock = await (await fetch(api + 'api/stock?item=lamp', {headers: {'X-Client': 'harbor'}})).json();
  document.getElementById('stock').textContent = stock.in_stock + ' in stock';
  const hits = await (await fetch('/api/search', {method: 'POST', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({q: 'lamp'})})).json();
  document.getElementById('hits').textContent = hits.hits.join(',');
  const part = await fetch('/static/manual.txt', {headers: {Range: 'bytes=6-11'}});
  document.getElementById('manual').textContent = part.status + ' ' + await part.text();
  await loaded;
  const reg = await navigator.serviceWorker.getRegistration();
  await reg.update().catch(() => {});  // the update check a PWA runs (workbox-window's update()): never sent live
  if (part.status !== 206 || !navigator.serviceWorker.controller) throw new Error('not through the worker');
  const button = document.getElementById('order');
  button.disabled = false;
  button.addEventListener('click', async () => {
    const r = await fetch('/api/order', {method: 'POST', headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({item: 'lamp', qty: 1, csrf_token: csrf})});
    document.getElementById('status').textContent = 'ordered ' + r.status;
  });
  document.getElementById('status').textContent = 'ready';
}
main().catch((e) => { document.getElementById('status').textContent = 'failed: ' + e.message; });
"""

PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c63f8cfc0f01f0005000201a0c5e6a30000000049454e44ae426082")
MANUAL = b"Lamp: harbor manual, page one."
RANGE = re.compile(r"bytes=(\d+)-(\d+)$")


class _Logged(LoopbackSite):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    def answer(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Answer:
        low = {k.lower(): v for k, v in headers.items()}
        self.log.append({"method": method, "path": path, "body": body.decode("utf-8", "replace"),
                         "range": low.get("range"), "sw": low.get("service-worker")})
        return self.route(method, path.split("?")[0], low, body)

    def route(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Answer:
        raise NotImplementedError


class StockApi(_Logged):
    """The second origin: JSON behind CORS with a custom request header (so the worker's fetch preflights)."""

    def route(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Answer:
        cors = {"Access-Control-Allow-Origin": headers.get("origin", "*"), "Access-Control-Allow-Headers": "X-Client",
                "Access-Control-Allow-Methods": "GET", "Vary": "Origin"}
        if method == "OPTIONS":
            return 204, b"", cors
        if path == "/api/stock" and headers.get("x-client") == "harbor":
            return 200, json.dumps({"item": "lamp", "in_stock": 4}).encode(), {**cors, "Content-Type":
                                                                              "application/json"}
        return 400, b"no", cors


class Shop(_Logged):
    """The shop's origin: home, worker, product page (a fresh CSRF token per load), image, search, Range, order."""

    def __init__(self, api: StockApi) -> None:
        super().__init__("shop")
        self.api = api
        self.tokens: list[str] = []

    def route(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Answer:
        html = {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"}
        if path == "/":
            return 200, HOME.encode(), html
        if path == "/sw.js":
            return 200, WORKER, {"Content-Type": "text/javascript"}
        if path == "/product/lamp":
            self.tokens.append(secrets.token_hex(12))
            return 200, PRODUCT.format(csrf=self.tokens[-1], api=self.api.url).encode(), html
        if path == "/static/product.js":
            return 200, SCRIPT, {"Content-Type": "text/javascript"}
        if path == "/static/lamp.png":
            return 200, PNG, {"Content-Type": "image/png"}
        if path == "/static/manual.txt":
            m = RANGE.match(headers.get("range", ""))
            if not m:
                return 200, MANUAL, {"Content-Type": "text/plain", "Accept-Ranges": "bytes"}
            a, b = int(m.group(1)), min(int(m.group(2)), len(MANUAL) - 1)
            return 206, MANUAL[a:b + 1], {"Content-Type": "text/plain", "Accept-Ranges": "bytes",
                                          "Content-Range": f"bytes {a}-{b}/{len(MANUAL)}"}
        if path == "/api/search" and method == "POST":
            q = json.loads(body or b"{}").get("q", "")
            return 200, json.dumps({"q": q, "hits": ["harbor-lamp"] if q == "lamp" else []}).encode(), {
                "Content-Type": "application/json"}
        if path == "/api/order" and method == "POST":
            return 200, b'{"ok": true}', {"Content-Type": "application/json"}
        return 404, b"not found", {"Content-Type": "text/plain"}
