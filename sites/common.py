"""What every site shares: the logging middleware, the frozen clock, page rendering, deterministic ids.

Each site is an aiohttp Application built by `make_app(ctx)`; `SiteContext` carries what it needs from the
server (its name, the frozen time, every site's base URL once bound, the truth log, a seeded id counter).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from aiohttp import web

from sites.truthlog import TruthLog, body_fields, redact_headers

DEFAULT_FROZEN_TIME = "2026-12-01T09:30:00+00:00"
FROZEN_ENV = "CLAWREC_SITES_FROZEN_TIME"
SITES_DIR = Path(__file__).resolve().parent


def parse_frozen(value: str, source: str = FROZEN_ENV) -> datetime:
    """ISO date or date-time; naive values are UTC. Raises ValueError naming `source` and the bad value."""
    text = value.strip().replace("Z", "+00:00")
    try:
        dt = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{source}: not an ISO date/time: {value!r}") from None
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


@dataclass
class SiteContext:
    name: str
    now: datetime
    log: TruthLog
    urls: dict[str, str]                       # filled in once every server is bound
    seed: str = "clawrec-sites"
    state: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._counter = itertools.count(1)

    def new_id(self, prefix: str, length: int = 10) -> str:
        """Deterministic id: a seeded hash of a per-site counter (same run order -> same ids)."""
        n = next(self._counter)
        digest = hashlib.sha256(f"{self.seed}:{self.name}:{prefix}:{n}".encode()).hexdigest()
        return f"{prefix}{digest[:length]}"

    @property
    def now_ms(self) -> int:
        return int(self.now.timestamp() * 1000)


CTX_KEY = web.AppKey("ctx", SiteContext)


def clock_script(now_ms: int) -> str:
    """Inline script that freezes Date in the page (new Date() and Date.now() return the frozen instant)."""
    return ("<script>(function(){var F=%d,R=Date;class D extends R{constructor(...a){"
            "if(a.length){super(...a)}else{super(F)}}static now(){return F}}"
            "window.Date=D;})();</script>" % now_ms)


def render_page(ctx: SiteContext, static_dir: Path, name: str, **values: Any) -> web.Response:
    """Serve an HTML file with the frozen clock and a data island (`window.SITE`) injected into <head>."""
    html = (static_dir / name).read_text(encoding="utf-8")
    data = {"urls": ctx.urls, "now": ctx.now.isoformat(), **values}
    island = "<script>window.SITE=%s;</script>" % json.dumps(data).replace("</", "<\\/")
    html = html.replace("<head>", "<head>" + clock_script(ctx.now_ms) + island, 1)
    return web.Response(text=html, content_type="text/html")


def html_response(text: str, status: int = 200) -> web.Response:
    return web.Response(text=text, status=status, content_type="text/html")


def make_logging_middleware(ctx: SiteContext) -> Callable:
    """Log every request (before the handler runs, so a crashing handler still leaves its record)."""

    @web.middleware
    async def log_requests(request: web.Request, handler: Callable) -> web.StreamResponse:
        body = await request.read() if request.body_exists else b""
        record: dict[str, Any] = {
            "t": time.time(),
            "site": ctx.name,
            "port": request.transport.get_extra_info("sockname")[1] if request.transport else None,
            "method": request.method,
            "path": request.path,
            "query": {k: request.query.getall(k) for k in request.query.keys()},
            "content_type": request.headers.get("Content-Type", ""),
            "headers": redact_headers(request.headers),
        }
        record.update(body_fields(body, record["content_type"]))
        ctx.log.write(record)
        response = await handler(request)
        if not response.prepared:  # revalidate every time: each page load reaches the log, whatever the cache
            response.headers.setdefault("Cache-Control", "no-cache")
        return response

    return log_requests


def log_ws_message(ctx: SiteContext, request: web.Request, data: str | bytes) -> None:
    """Record one received WebSocket message (method "WS", the socket's path, ws.direction "in")."""
    text = data if isinstance(data, str) else None
    record: dict[str, Any] = {
        "t": time.time(),
        "site": ctx.name,
        "port": request.transport.get_extra_info("sockname")[1] if request.transport else None,
        "method": "WS", "path": request.path, "query": {}, "content_type": "",
        "headers": {}, "ws": {"direction": "in", "data": text if text is not None else None},
    }
    raw = data.encode() if isinstance(data, str) else data
    record.update({"body_size": len(raw), "body_sha256": hashlib.sha256(raw).hexdigest()})
    ctx.log.write(record)


def new_app(ctx: SiteContext) -> web.Application:
    app = web.Application(middlewares=[make_logging_middleware(ctx)], client_max_size=20 * 1024 * 1024)
    app[CTX_KEY] = ctx
    return app


def json_body(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8") or "null")
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
