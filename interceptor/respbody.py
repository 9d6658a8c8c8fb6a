"""Response bodies for http.jsonl: the requests a person debugs (XHR, Fetch, and other text-like responses that
are not a page's HTML), capped, read with Network.getResponseBody once Network.loadingFinished says the body is
complete.

Why not Documents: a page's HTML routinely embeds values the redaction policy cannot name (a CSRF token in a meta
tag, keys in an inline script's config, a one-time code shown as text) and that the page only later sends in a
secret-named field; the record is written before that, so the value would stay in clear (tests/pipeline/
test_secrets.py). JSON and form bodies are decoded, so their secret-named fields are masked like a request's.

Why here and like this: interception speed is a product goal, so nothing of this touches the paused-request (Fetch)
path or the CDP reader loop: a body is read by a CDP call whose answer a callback handles, a few at a time (`CONCURRENCY`), and the record waits
for it (its `t` is the time the request finished, so steps still place it right). Chrome keeps response bodies only
when Network.enable gives it buffers: `BUFFERS` are small (a body over the cap is never buffered, nor read: it is
`{kind: "too large", size}`). A body that cannot be read (its target went away, Chrome evicted it, the run is
closing) is `{kind: "unavailable"}`; never an error of the run. Secrets: the body has the request body's shape
(httplog.body_record: fields named like secrets masked) and passes the run's Redactor with the rest of the record.
"""

from __future__ import annotations

import asyncio
import base64
import logging
from collections import deque
from typing import Any, Callable

from interceptor.cdp import CDPError, Session
from taskspec import payload

log = logging.getLogger("clawrec.respbody")

RESPONSE_CAP = 64 * 1024  # bytes of one response body kept; bigger ones are {kind: "too large", size}
# Network.enable buffers per target (CDP maxTotalBufferSize / maxResourceBufferSize): room for a few capped bodies
# waiting to be read; a resource bigger than the per-resource size is not buffered at all.
BUFFERS = {"maxTotalBufferSize": 32 * RESPONSE_CAP, "maxResourceBufferSize": RESPONSE_CAP}
CONCURRENCY = 4      # getResponseBody calls in flight at once
MAX_WAITING = 256    # records waiting for their body; past this a body is not read (`unavailable`)
WANTED_TYPES = frozenset({"XHR", "Fetch", "EventSource"})
STATIC_TYPES = frozenset({"Document", "Image", "Media", "Font", "Stylesheet", "Script", "TextTrack", "Manifest",
                          "SignedExchange", "Prefetch", "CSPViolationReport", "Ping"})
TEXT_MIME = ("json", "xml", "text/", "x-www-form-urlencoded", "graphql")
MEDIA_MIME = ("image/", "font/", "audio/", "video/")  # an icon's SVG is XML, not what a person debugs
FORM_MIME = ("json", "x-www-form-urlencoded")

Shape = Callable[[payload.Body, int], dict[str, Any]]


def wanted(resource_type: Any, mime: Any) -> bool:
    """XHR/Fetch always; any other request (not a page's document, not static) whose response is text-like."""
    if resource_type in WANTED_TYPES:
        return True
    low = str(mime or "").lower()
    return resource_type not in STATIC_TYPES and not low.startswith(MEDIA_MIME) and any(m in low for m in TEXT_MIME)


def declared_size(headers: Any, encoded: Any) -> int | None:
    """The body's size before reading it: Content-Length, else the bytes Chrome received (encodedDataLength)."""
    length = payload.header(headers if isinstance(headers, dict) else {}, "content-length").split(",")[0].strip()
    if length.isascii() and length.isdigit() and len(length) < 16:
        return int(length)
    return int(encoded) if isinstance(encoded, (int, float)) and encoded > 0 else None


def decode(reply: dict[str, Any], mime: str) -> payload.Body:
    """getResponseBody's answer as a Body: JSON and forms decoded (so fields named like secrets can be masked),
    other text kept as text, base64 bytes of a non-text type as binary."""
    data = reply.get("body") or ""
    encoded = bool(reply.get("base64Encoded"))
    raw = base64.b64decode(data) if encoded else data.encode("utf-8", "replace")
    low = mime.lower()
    if any(m in low for m in FORM_MIME):
        return payload.decode(raw, low)
    if not raw:
        return payload.Body("empty", None, raw)
    if encoded and not any(m in low for m in TEXT_MIME):
        return payload.Body("binary", None, raw)
    return payload.Body("text", None, raw)


class ResponseBodies:
    """Reads the bodies of finished requests beside the reader loop and hands each record back to `emit`.

    Plain futures and done-callbacks, no task per body (a task and a timeout per request cost CPU the browser
    shares): at most CONCURRENCY getResponseBody calls are out at once, the rest wait in a queue. No per-call
    timeout: a closed session fails its calls, and close() writes whatever is still waiting."""

    def __init__(self, shape: Shape, emit: Callable[[dict[str, Any]], None], cap: int = RESPONSE_CAP) -> None:
        self.shape, self.emit, self.cap = shape, emit, cap
        self._waiting: dict[int, tuple[Session, dict[str, Any], str]] = {}  # id(rec) -> what reads it
        self._queue: deque[int] = deque()
        self._out: dict[asyncio.Future, int] = {}  # calls in flight -> their record

    def finished(self, session: Session, rec: dict[str, Any], encoded: Any) -> bool:
        """Called on loadingFinished. True: the body is being read and `emit(rec)` follows; False: emit now (the
        body, when known without reading, is already in `rec["response"]["body"]`)."""
        resp = rec.get("response")
        if not isinstance(resp, dict) or rec.get("method") == "HEAD" or \
                not wanted(rec.get("resource_type"), resp.get("mime")):
            return False
        size = declared_size(resp.get("headers"), encoded)
        if size is not None and size > self.cap:
            resp["body"] = {"kind": "too large", "size": size}
            return False
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no loop (a caller outside the interceptor): nothing can be read
            return False
        if len(self._waiting) >= MAX_WAITING:
            resp["body"] = {"kind": "unavailable", "size": size, "why": "too many responses at once"}
            return False
        self._waiting[id(rec)] = (session, rec, str(resp.get("mime") or ""))
        self._queue.append(id(rec))
        self._pump()
        return True

    def _pump(self) -> None:
        while self._queue and len(self._out) < CONCURRENCY:
            key = self._queue.popleft()
            if key not in self._waiting:
                continue
            session, rec, _mime = self._waiting[key]
            fut = session.send("Network.getResponseBody", {"requestId": rec["id"]})
            self._out[fut] = key
            fut.add_done_callback(self._answered)

    def _answered(self, fut: asyncio.Future) -> None:
        key = self._out.pop(fut, None)
        entry = self._waiting.pop(key, None) if key is not None else None
        if entry is None:  # closed meanwhile: already written without its body
            if not fut.cancelled():
                fut.exception()  # retrieved: never "exception was never retrieved"
            return
        _session, rec, mime = entry
        body: dict[str, Any] = {"kind": "unavailable", "size": None}
        try:
            if fut.cancelled():
                pass
            elif isinstance(exc := fut.exception(), CDPError):  # target gone, body evicted or never buffered
                log.debug("response body unavailable: %s", exc)
            elif exc is None:
                body = self._shape(decode(fut.result(), mime))
        except Exception:  # never the run's problem: the record is written without its body
            log.exception("response body not read")
        rec["response"]["body"] = body
        self.emit(rec)
        self._pump()

    def _shape(self, decoded: payload.Body) -> dict[str, Any]:
        """The body record. A decoded value is put in after shaping: the run's JsonlWriter masks secret-named fields
        of every line that may hold one (rundir/redact.py, the same rule as `mask_fields`), so masking here too
        walked a big JSON twice (measured: the walk is most of a body's cost)."""
        size = len(decoded.raw)
        if size > self.cap:
            return {"kind": "too large", "size": size}
        value, decoded.value = decoded.value, None
        body = self.shape(decoded, size)
        if value is not None and decoded.kind not in ("text", "binary"):
            body["value"] = value
        return body

    async def settle(self, timeout: float) -> None:
        """Wait (at most `timeout` s) for the bodies being read, before the log closes."""
        deadline = asyncio.get_running_loop().time() + timeout
        while self._out:
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                return
            await asyncio.wait(list(self._out), timeout=left)
            await asyncio.sleep(0)  # let the done-callbacks run (they send the next calls)

    def close(self) -> None:
        """Emit the records still waiting, body `unavailable`, and stop reading."""
        self._queue.clear()
        for key in list(self._waiting):
            _session, rec, _mime = self._waiting.pop(key)
            rec["response"]["body"] = {"kind": "unavailable", "size": None}
            self.emit(rec)
