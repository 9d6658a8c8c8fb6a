"""The response a replay sends for one request: the recorded one, or one synthesized the way a browser needs it.

Why synthesize: a browser asks for things an archive seldom holds as asked. A CORS preflight (OPTIONS with
Access-Control-Request-Method) is answered 204 allowing what it asks, from the origin it names; a `Range` request
gets a 206 slice of a recorded whole body (or of a recorded 206 that covers it); a HEAD gets the GET's headers. A
miss is a 404. Hop-by-hop headers are dropped and Content-Length set to the bytes sent (bodies are stored decoded).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from archive.index import Hit, ReplayIndex
from archive.warc import Exchange, Headers

HOP = frozenset({"transfer-encoding", "connection", "keep-alive", "content-length", "content-encoding",
                 "x-orig-content-encoding", "content-range"})
RANGE = re.compile(r"bytes=(\d*)-(\d*)$")
CONTENT_RANGE = re.compile(r"bytes (\d+)-(\d+)/(\d+|\*)")


@dataclass
class Answer:
    status: int
    headers: Headers
    body: bytes
    tier: str                      # exact | key | normalized | nearest | miss | synthesized
    synthesized: str = ""          # preflight | range | head
    url: str = ""                  # the recorded URL that answered
    extra: dict = field(default_factory=dict)


def _h(headers: dict[str, str], name: str) -> str:
    low = name.lower()
    return next((str(v) for k, v in headers.items() if k.lower() == low), "")


def _clean(headers: Headers, length: int) -> Headers:
    out = [(k, v) for k, v in headers if k.lower() not in HOP]
    return out + [("Content-Length", str(length))]


def preflight(headers: dict[str, str]) -> Answer:
    origin = _h(headers, "origin") or "*"
    out = [("Access-Control-Allow-Origin", origin), ("Vary", "Origin"),
           ("Access-Control-Allow-Methods", _h(headers, "access-control-request-method") or "GET"),
           ("Access-Control-Max-Age", "600")]
    if origin != "*":
        out.append(("Access-Control-Allow-Credentials", "true"))
    if _h(headers, "access-control-request-headers"):
        out.append(("Access-Control-Allow-Headers", _h(headers, "access-control-request-headers")))
    return Answer(204, out + [("Content-Length", "0")], b"", "synthesized", "preflight")


def _slice(ex: Exchange, spec: str) -> Answer | None:
    """A 206 for `bytes=a-b` from a recorded body (whole, or a recorded 206 whose range covers it)."""
    m = RANGE.match(spec.strip())
    if not m or ex.truncated:
        return None
    base, total = 0, len(ex.body)
    if ex.status == 206:
        cr = CONTENT_RANGE.match(ex.header("content-range"))
        if not cr:
            return None
        base = int(cr.group(1))
        total = int(cr.group(3)) if cr.group(3) != "*" else base + len(ex.body)
    elif ex.status != 200:
        return None
    start_s, end_s = m.groups()
    if start_s == "":  # suffix range: the last N bytes
        start, end = max(total - int(end_s or 0), 0), total - 1
    else:
        start, end = int(start_s), min(int(end_s) if end_s else total - 1, total - 1)
    if start < base or start > end:
        return None
    end = min(end, base + len(ex.body) - 1)
    body = ex.body[start - base:end - base + 1]
    headers = _clean(ex.headers, len(body)) + [("Content-Range", f"bytes {start}-{end}/{total}")]
    if not any(k.lower() == "accept-ranges" for k, _ in headers):
        headers.append(("Accept-Ranges", "bytes"))
    return Answer(206, headers, body, "", "range", ex.url)


def answer(index: ReplayIndex, method: str, url: str, headers: dict[str, str], body: bytes = b"") -> Answer:
    """What to send for this request (never None: a miss is a 404)."""
    method = method.upper()
    hit: Hit = index.lookup(method, url, headers, body)
    if hit.exchange is None and method == "OPTIONS" and _h(headers, "access-control-request-method"):
        return preflight(headers)
    synthesized = ""
    if hit.exchange is None and method == "HEAD":
        hit, synthesized = index.lookup("GET", url, headers), "head"
    ex = hit.exchange
    if ex is None:
        msg = b"clawrec replay: not in the archive"
        return Answer(404, [("Content-Type", "text/plain"), ("Content-Length", str(len(msg)))], msg, "miss")
    rng = _h(headers, "range")
    if rng and method in ("GET", "HEAD"):
        sliced = _slice(ex, rng)
        if sliced is not None:
            sliced.tier = hit.tier
            if method == "HEAD":
                sliced.body = b""
            return sliced
    data = b"" if method == "HEAD" else ex.body
    out = _clean(ex.headers, len(ex.body))
    if ex.status == 206 and ex.header("content-range"):
        out.append(("Content-Range", ex.header("content-range")))
    return Answer(ex.status, out, data, hit.tier, synthesized, ex.url)
