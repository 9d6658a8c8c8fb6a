"""`--archive` capture: every HTTP exchange of every target, bodies whole, into RUN/archive.warc.gz (archive.warc).

Why Network.getResponseBody after loadingFinished, not Fetch at the response stage: a response-stage pause puts a
CDP round trip (and the body's base64 through this process) on the critical path of EVERY response, while
getResponseBody reads a body the browser already has, after the page got it; nothing of this touches the Fetch path
or awaits in the reader loop (bench/archive.py measures the run's wall time with and without --archive). Chrome
keeps a body only if Network.enable gave it buffers: with --archive they are raised to the cap (`BUFFERS`); a body
Chrome would not keep (media streamed from the cache, over the cap) is archived with what could be had and marked
truncated. Response headers come from responseReceivedExtraInfo when Chrome sends it (the wire headers, both
Set-Cookie lines); redirects are their own exchanges (requestWillBeSent.redirectResponse).

Events are joined by requestId across sessions (interceptor/netjoin.py, the HTTP log's join too): a worker's script
and a cross-site iframe's document span two sessions. The body is read on the session that saw loadingFinished. A
load that fails after its response (a 204 Chrome ends with ERR_ABORTED, a body cut by navigation) is archived with
the body it had.

Secrets: request headers and bodies pass the run's redaction policy like http.jsonl (rundir/redact.py); a
Set-Cookie value is redacted when its cookie is HttpOnly or secret-named (a replay serves responses and page
scripts can read only the others); response bodies are kept (a replay needs them).
"""

from __future__ import annotations

import asyncio
import base64
import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

from archive.warc import ARCHIVE, DEFAULT_CAP, WarcFile
from interceptor.cdp import CDPError, Session
from interceptor.httplog import NETWORK_TYPES, scrub, url_ignored
from interceptor.netjoin import NetworkJoin
from interceptor.workerbodies import WorkerBodies
from rundir.redact import REDACTED, Redactor, mask_fields, redact_headers, secret_name, secret_values
from taskspec import payload

log = logging.getLogger("clawrec.capture")

SCHEMES = ("http://", "https://")


def buffers(cap: int) -> dict[str, int]:
    """Network.enable buffers that keep whole bodies up to `cap` (Chrome evicts the oldest past the total)."""
    return {"maxTotalBufferSize": max(4 * cap, 64 * 1024 * 1024), "maxResourceBufferSize": cap}


def _split(headers: dict[str, Any] | None) -> list[tuple[str, str]]:
    """CDP headers (one value per name, repeated headers joined by newlines) as wire header lines."""
    out = []
    for k, v in (headers or {}).items():
        for line in str(v).split("\n"):
            out.append((k, line))
    return out


def _set_cookie(value: str) -> str:
    name, _, rest = value.partition("=")
    attrs = rest.split(";", 1)
    if secret_name(name.strip()) or "httponly" in rest.lower().replace(" ", ""):
        return f"{name}={REDACTED}" + (f";{attrs[1]}" if len(attrs) > 1 else "")
    return value


class Capture:
    """Joins Network events per request and writes each finished exchange to the run's archive."""

    def __init__(self, run_dir: Path, cap: int = DEFAULT_CAP, ignore: Iterable[str] = (),
                 secrets: Iterable[str] = ()) -> None:
        self.path = Path(run_dir) / ARCHIVE
        self.cap = cap
        self.ignore = tuple(u for u in ignore if u)
        self.redactor = Redactor(secrets)
        self.warc = WarcFile(self.path, cap)
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="clawrec-warc")  # gzip off the reader loop
        self.join: NetworkJoin[dict[str, Any]] = NetworkJoin(
            self._request, self._redirected, self._response, self._ended, wire_response=self._wire)
        self._reading: set[asyncio.Future] = set()
        self.worker_bodies = WorkerBodies(cap)  # a service worker's bodies, read at the Fetch response stage
        self.pages: list[dict[str, Any]] = []
        self.started = datetime.now(timezone.utc)
        self.info: dict[str, Any] = {}
        self.truncated = 0
        self.closed = False

    def prepare(self, session: Session) -> list[asyncio.Future]:
        if session.target_type not in NETWORK_TYPES or url_ignored(session.target_info.get("url"), self.ignore):
            return []
        self.join.listen(session)
        # After the HTTP layer's Network.enable (same queue): these buffers replace its small ones.
        futures = [session.send("Network.enable", {"maxPostDataSize": 1024 * 1024, **buffers(self.cap)})]
        if session.target_type in ("page", "iframe"):
            # Bodies kept outside the renderer survive a navigation: misago's sign-in XHR answer, read after its
            # handler had submitted the login form, was gone (archived empty: the replay stalled). Not awaited: a
            # Chrome without the command archives as before (a failed prepare future would close the target).
            durable = session.send("Network.configureDurableMessages", buffers(self.cap))
            durable.add_done_callback(lambda f: f.cancelled() or f.exception())
        return futures

    def _request(self, session: Session, p: dict[str, Any]) -> dict[str, Any] | None:
        req = p["request"]
        url = req["url"]
        if not url.startswith(SCHEMES) or session.id is not None and url_ignored(url, self.ignore):
            return None
        if p.get("type") == "Document" and session.target_type == "page" and p.get("frameId") == session.target_id:
            self.pages.append({"url": url, "ts": datetime.now(timezone.utc).isoformat()})
        raw, _complete = payload.entries_bytes(req) if req.get("hasPostData") else (b"", True)
        return {"method": req["method"], "url": url, "headers": req.get("headers", {}), "body": raw,
                "date": datetime.now(timezone.utc)}

    def fetch_patterns(self, session: Session) -> list[dict[str, str]]:
        """Fetch patterns this target needs besides the interceptor's (a service worker's bodies)."""
        return self.worker_bodies.patterns(session)

    def response_paused(self, session: Session, params: dict[str, Any]) -> None:
        """A response paused at the response stage (a service worker's): its body is read, then it goes on."""
        self.worker_bodies.paused(session, params, self.closed)

    def _redirected(self, rec: dict[str, Any], session: Session, response: dict[str, Any]) -> None:
        if response.get("fromServiceWorker"):
            return  # a service worker's answer to a page: the worker's own exchange is the one archived
        self._respond(rec, response)
        self._write(rec, b"", False)

    def _wire(self, rec: dict[str, Any], p: dict[str, Any]) -> None:
        rec["wire"] = _split(p.get("headers"))  # the response's wire headers (both Set-Cookie lines)

    def _respond(self, rec: dict[str, Any], r: dict[str, Any]) -> None:
        rec["status"], rec["reason"] = r.get("status", 0), r.get("statusText", "")
        rec["resp_headers"] = rec.pop("wire", None) or _split(r.get("headers"))

    def _response(self, rec: dict[str, Any], session: Session, p: dict[str, Any]) -> None:
        if p["response"].get("fromServiceWorker"):
            return  # a worker's answer to a page, not an exchange with the site: left out (no response, see _ended)
        rec["response"] = p["response"]
        rec["resource_type"] = p.get("type")

    def _ended(self, rec: dict[str, Any], session: Session, p: dict[str, Any], error: str | None) -> None:
        """A load that failed after its response is still an exchange: archived with no body (cut unless none)."""
        if "response" not in rec or self.closed:
            return
        self._respond(rec, rec.pop("response"))
        empty = rec["method"] == "HEAD" or rec["status"] in (204, 304)
        if error is not None or empty:
            self._write(rec, b"", error is not None and not empty)
            return
        known, body = self.worker_bodies.take(p["requestId"])
        if known:  # a service worker's: its Network domain never held the body
            self._write(rec, body or b"", body is None)
            return
        fut = session.send("Network.getResponseBody", {"requestId": p["requestId"]})
        self._reading.add(fut)
        fut.add_done_callback(lambda f, r=rec: self._body(f, r))

    def _body(self, fut: asyncio.Future, rec: dict[str, Any]) -> None:
        self._reading.discard(fut)
        body, truncated = b"", True
        if not fut.cancelled():
            exc = fut.exception()
            if exc is None:
                reply = fut.result()
                data = reply.get("body") or ""
                body = base64.b64decode(data) if reply.get("base64Encoded") else data.encode("utf-8")
                truncated = False
            elif not isinstance(exc, CDPError):
                log.error("archive: reading %s failed: %r", rec["url"], exc)
        self._write(rec, body, truncated)

    def _write(self, rec: dict[str, Any], body: bytes, truncated: bool) -> None:
        if self.closed:
            return
        if truncated:
            self.truncated += 1
        req_headers = [(k, self.redactor.text(str(v))) for k, v in redact_headers(rec["headers"]).items()]
        req_body = rec["body"]
        if req_body:
            decoded = payload.decode(req_body, payload.header(rec["headers"], "content-type"))
            hidden = secret_values(decoded.value)
            if hidden or self.redactor.values:
                text = scrub(req_body.decode("utf-8", "surrogateescape"), hidden)
                req_body = self.redactor.text(text).encode("utf-8", "surrogateescape")
        headers = [(k, _set_cookie(v) if k.lower() == "set-cookie" else v) for k, v in rec["resp_headers"]]
        self._pool.submit(self._write_now, rec["method"], self.redactor.text(rec["url"]), req_headers, req_body,
                          rec["status"], rec["reason"], headers, body, rec["date"], truncated)

    def _write_now(self, *args: Any) -> None:
        try:
            self.warc.exchange(*args)
        except Exception:
            log.exception("archive: writing an exchange failed")

    async def close(self, info: dict[str, Any] | None = None, timeout: float = 10.0) -> None:
        """Archive what was answered but not finished, wait (bounded) for bodies being read, write the info record."""
        if self.closed:
            return
        for rec in self.join.drain():  # answered, still loading (a stream): archived as cut
            if "response" in rec:
                self._respond(rec, rec.pop("response"))
                self._write(rec, b"", True)
        if self._reading:
            await asyncio.wait(list(self._reading), timeout=timeout)
            await asyncio.sleep(0)
        self.closed = True
        meta = {"start": self.started.isoformat(), "start_epoch": self.started.timestamp(),
                "timezone": os.environ.get("TZ") or time.tzname[0], "locale": os.environ.get("LANG", ""),
                "pages": self.pages, **self.info, **(info or {})}
        self._pool.submit(self.warc.metadata, mask_fields(meta))
        await asyncio.get_running_loop().run_in_executor(None, self._pool.shutdown, True)
        self.warc.close()

    @property
    def secrets(self) -> list[str]:
        return list(self.redactor.values)

    @secrets.setter
    def secrets(self, values: Iterable[str]) -> None:
        """Learn run secrets (a value typed into a password input): redacted from every exchange written after."""
        self.redactor.add(values)

    @property
    def stats(self) -> dict[str, Any]:
        return {"exchanges": self.warc.exchanges, "truncated": self.truncated,
                "bytes": self.path.stat().st_size if self.path.exists() else 0}
