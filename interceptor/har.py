"""HAR 1.2 from http.jsonl records. Hand-rolled because no maintained Python HAR *writer* exists (haralyzer and
har2tree only read); the format is one small JSON shape (http://www.softwareishard.com/blog/har-12-spec/).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import orjson

from rundir.records import RunClock

CREATOR = {"name": "clawrec", "version": "0.1.0"}


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, tz=timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _headers(h: dict[str, Any] | None) -> list[dict[str, str]]:
    out = []
    for k, v in (h or {}).items():
        for line in str(v).split("\n"):
            out.append({"name": k, "value": line})
    return out


def _post_data(rec: dict[str, Any]) -> dict[str, Any] | None:
    body = rec.get("body")
    if not body:
        return None
    mime = next((v for k, v in (rec.get("headers") or {}).items() if k.lower() == "content-type"), "")
    value = body.get("value")
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False) if value is not None else ""
    return {"mimeType": mime, "text": text}


def _content(rec: dict[str, Any], resp: dict[str, Any]) -> dict[str, Any]:
    """HAR `response.content`: `text` is the recorded (capped, redacted) response body; a body not recorded says
    why in `comment` (too large, unavailable)."""
    content: dict[str, Any] = {"size": rec.get("size") or 0, "mimeType": resp.get("mime") or "x-unknown"}
    body = resp.get("body")
    if not isinstance(body, dict):
        return content
    if isinstance(body.get("size"), int):
        content["size"] = body["size"]
    value = "" if body.get("kind") == "empty" else body.get("value")
    if value is not None:
        content["text"] = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    else:
        content["comment"] = f"body not recorded: {body.get('kind')}" + (
            f" ({body['size']} bytes)" if isinstance(body.get("size"), int) else "")
    return content


def _body_size(body: dict[str, Any] | None) -> int:
    """HAR bodySize: 0 without a body, -1 when unknown (an `unavailable` body without a Content-Length)."""
    if not body:
        return 0
    size = body.get("size")
    return size if isinstance(size, int) else -1


def entry(rec: dict[str, Any], clock: RunClock) -> dict[str, Any]:
    wall = rec.get("wall_time")  # the browser's clock: a replay's is moved (RunClock.browser_shift)
    started = wall - clock.browser_shift if wall else clock.t0 + float(rec.get("started") or 0)
    total = max(0.0, (float(rec.get("t") or 0) - float(rec.get("started") or 0)) * 1000)
    resp = rec.get("response") or {}
    request: dict[str, Any] = {
        "method": rec["method"], "url": rec["url"], "httpVersion": resp.get("protocol") or "HTTP/1.1",
        "cookies": [], "headers": _headers(rec.get("headers")),
        "queryString": [{"name": k, "value": v} for k, v in parse_qsl(urlsplit(rec["url"]).query, True)],
        "headersSize": -1, "bodySize": _body_size(rec.get("body")),
    }
    post = _post_data(rec)
    if post:
        request["postData"] = post
    location = next((v for k, v in (resp.get("headers") or {}).items() if k.lower() == "location"), "")
    response = {
        "status": resp.get("status") or 0, "statusText": resp.get("status_text", ""),
        "httpVersion": resp.get("protocol") or "HTTP/1.1", "cookies": [], "headers": _headers(resp.get("headers")),
        "content": _content(rec, resp),
        "redirectURL": location, "headersSize": -1, "bodySize": rec.get("size") or -1,
    }
    if rec.get("error"):
        response["_error"] = rec["error"]
    e = {
        "startedDateTime": _iso(started), "time": round(total, 3), "request": request, "response": response,
        "cache": {}, "timings": {"send": 0, "wait": round(total, 3), "receive": 0},
        "_resourceType": (rec.get("resource_type") or "other").lower(),
    }
    if rec.get("intercepted"):
        e["_intercepted"] = rec["intercepted"]
    return e


def _dumps(har: dict[str, Any]) -> bytes:
    """The HAR as compact UTF-8 JSON. orjson: the stdlib's encoder was ~0.1 ms of CPU per request at close (measured,
    bench/http_cpu.py); the stdlib still writes what orjson refuses (a lone surrogate a page put in a string,
    escaped: the file stays valid UTF-8)."""
    try:
        return orjson.dumps(har, default=str, option=orjson.OPT_NON_STR_KEYS)
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(har, default=str).encode()  # ASCII: a lone surrogate escaped


def write_har(path: Path, records: list[dict[str, Any]], clock: RunClock) -> dict[str, Any]:
    har = {"log": {"version": "1.2", "creator": CREATOR, "pages": [],
                   "entries": [entry(r, clock) for r in records if r.get("type") == "request"]}}
    tmp = path.with_suffix(".har.tmp")
    try:
        tmp.write_bytes(_dumps(har))
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)  # a full disk leaves no half-written temp file
    return har
