"""Driftwood Goods: a small shop whose every load differs (per-load CSRF token and server time) and which can drift
(`version = 2`: the order button renamed, prices changed), with what a web archive must get right: a 302, two
Set-Cookie headers, gzip'd JSON fetched with a cache-buster, a POST search, a cross-origin fetch with a custom header
(CORS preflight) to a second origin, an image, a short video fetched with Range, a service worker (by default one that
answers /api/config through its own fetch; `worker="passthrough"`: the pass-through worker of most PWAs, and the
shop reloads once it controls the page, so that every request of the shop is the worker's).

`serve_drift()` runs the shop (127.0.0.1) and its stock API (localhost: another origin) on port-0 servers in
serve_sites' background thread (sites/server.py); `.log` lists every request either received (the truth of what
left the browser)."""

from __future__ import annotations

import contextlib
import gzip
import json
import secrets
import struct
import subprocess
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any, Callable, Iterator

from aiohttp import web

from sites.common import SiteContext
from sites.server import serve_sites

HERE = Path(__file__).resolve().parent
PRODUCTS = {1: [("lamp-01", "Driftwood lamp", 49.0), ("bowl-02", "Oak bowl", 24.0), ("rug-03", "Wool rug", 120.0)],
            2: [("lamp-01", "Driftwood lamp", 59.0), ("bowl-02", "Oak bowl", 29.0), ("rug-03", "Wool rug", 135.0)]}
BUTTON = {1: "Order now", 2: "Buy now"}


def _png() -> bytes:
    """A 16x16 sand-coloured PNG (the item image)."""
    raw = b"".join(b"\x00" + b"\xd8\xc0\x90" * 16 for _ in range(16))
    chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(  # noqa: E731
        ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 16, 16, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def _video(folder: Path) -> Path:
    """A one-second 64x64 WebM made by ffmpeg (the product clip; Chrome fetches media with Range)."""
    out = folder / "clip.webm"
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=duration=1:size=64x64:rate=10",
                    "-c:v", "libvpx", "-b:v", "50k", str(out)], check=True, timeout=60)
    return out


class DriftSite:
    """The shop's state: `version` (1, then 2 once it drifted) and the request log."""

    def __init__(self, folder: Path, worker: str = "config") -> None:
        self.version = 1
        self.worker = worker  # "config" (sw.js) | "passthrough" (sw_passthrough.js)
        self.log: list[dict[str, Any]] = []
        self.tokens: list[str] = []  # the CSRF token of each page served, in order (run files redact them)
        self.video = _video(folder)
        self.image = _png()
        self.urls: dict[str, str] = {}

    def _record(self, request: web.Request, body: bytes, origin: str) -> None:
        self.log.append({"t": time.time(), "origin": origin, "method": request.method, "path": request.path,
                         "query": request.query_string, "body": body.decode("utf-8", "replace"),
                         "range": request.headers.get("Range")})

    def shop(self) -> web.Application:
        async def logged(request: web.Request, handler: Any) -> web.StreamResponse:
            self._record(request, await request.read(), "shop")
            return await handler(request)

        app = web.Application(middlewares=[web.middleware(logged)])
        r = app.router
        r.add_get("/", lambda _r: web.HTTPFound("/shop"))
        r.add_get("/shop", self._page)
        r.add_get("/static/app.js", lambda _r: web.FileResponse(HERE / "app.js"))
        script = HERE / ("sw_passthrough.js" if self.worker == "passthrough" else "sw.js")
        r.add_get("/sw.js", lambda _r: web.FileResponse(script, headers={"Content-Type": "text/javascript"}))
        r.add_get("/static/item.png", lambda _r: web.Response(body=self.image, content_type="image/png"))
        r.add_get("/static/clip.webm", lambda _r: web.FileResponse(self.video, headers={"Content-Type": "video/webm"}))
        r.add_get("/api/products", self._products)
        r.add_get("/api/config", lambda _r: web.json_response({"currency": "USD", "version": self.version}))
        r.add_post("/api/search", self._search)
        r.add_post("/api/order", lambda _r: web.json_response({"ok": True, "order": "D-1001"}))
        return app

    def stock(self) -> web.Application:
        async def cors(request: web.Request, handler: Any) -> web.StreamResponse:
            self._record(request, await request.read(), "stock")
            origin = request.headers.get("Origin", "*")
            if request.method == "OPTIONS":
                resp: web.StreamResponse = web.Response(status=204)
            else:
                resp = await handler(request)
            resp.headers.update({"Access-Control-Allow-Origin": origin, "Access-Control-Allow-Headers": "X-Client",
                                 "Access-Control-Allow-Methods": "GET", "Vary": "Origin"})
            return resp

        app = web.Application(middlewares=[web.middleware(cors)])
        app.router.add_route("*", "/api/stock", lambda r: web.json_response(
            {"item": r.query.get("item"), "in_stock": 3 if self.version == 1 else 1}))
        return app

    async def _page(self, request: web.Request) -> web.Response:
        html = (HERE / "index.html").read_text()
        self.tokens.append(secrets.token_hex(16))
        html = (html.replace("{{csrf}}", self.tokens[-1]).replace("{{server_time}}", time.strftime(
            "%Y-%m-%dT%H:%M:%S", time.gmtime())).replace("{{stock}}", self.urls["stock"])
                .replace("{{worker}}", self.worker))
        resp = web.Response(text=html, content_type="text/html")
        resp.set_cookie("drift_session", secrets.token_hex(8), httponly=True, path="/")
        resp.set_cookie("drift_theme", "sand", path="/")
        return resp

    async def _products(self, request: web.Request) -> web.Response:
        data = [{"id": i, "name": n, "price": p, "button": BUTTON[self.version]} for i, n, p in PRODUCTS[self.version]]
        body = gzip.compress(json.dumps(data).encode())
        return web.Response(body=body, headers={"Content-Type": "application/json", "Content-Encoding": "gzip",
                                                "Cache-Control": "no-cache"})

    async def _search(self, request: web.Request) -> web.Response:
        q = str((await request.json()).get("q", "")).lower()
        hits = [{"id": i, "name": n, "price": p, "button": BUTTON[self.version]}
                for i, n, p in PRODUCTS[self.version] if q in n.lower() or q in i]
        return web.json_response({"q": q, "hits": hits})


@contextlib.contextmanager
def serve_drift(worker: str = "config") -> Iterator[DriftSite]:
    """Serve the shop on 127.0.0.1 and its stock API on localhost (ports 0) until the block ends, on sites/'
    machinery (serve_sites: one background loop). The site keeps its own clock and log: it must differ per load."""
    with tempfile.TemporaryDirectory(prefix="clawrec-drift-") as tmp:
        site = DriftSite(Path(tmp), worker)

        def made(app: Callable[[], web.Application]) -> Callable[[SiteContext], web.Application]:
            def make(ctx: SiteContext) -> web.Application:
                site.urls = ctx.urls  # filled in once both servers are bound, before any request
                return app()
            return make

        with serve_sites(apps={"shop": made(site.shop), "stock": made(site.stock)}, hosts={"stock": "localhost"}):
            yield site
