"""The HTTP layer: every request and response of every target from Network events -> http.jsonl, WebSocket
frames included; http.har (HAR 1.2) written from the same records at close.

Why Network events and not Fetch: Fetch pauses only what can match (narrowing), Network sees everything, including
WebSocket frames. Secrets never reach the disk: headers, query parameters and body fields named like secrets are
redacted by the one policy (rundir/redact.py, applied by the JsonlWriter; http.har is built from the redacted
records). The recorder's own traffic (its action channel, its extension's targets) is not the page's: `ignore` URL
prefixes are never logged, and `secrets` (the channel token, the spec's secret values) are scrubbed from every
record. Logging only: the interceptor still matches everything.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Iterable

from taskspec import payload
from interceptor.cdp import Session
from interceptor.frames import Frames
from interceptor.har import write_har
from interceptor.netjoin import NetworkJoin
from interceptor.respbody import BUFFERS, ResponseBodies
from rundir.layers import HttpRecord
from rundir.records import HAR, HTTP, JsonlWriter, RunClock
from rundir.redact import Redactor, mask_fields, redact_headers

BODY_LIMIT = 64 * 1024
FLUSH_DELAY = 0.1  # seconds between flushes of http.jsonl
NETWORK_TYPES = ("page", "iframe", "worker", "shared_worker", "service_worker")


def scrub(text: str, secrets: list[str]) -> str:
    """`text` with each of `secrets` (the clear values of a body's secret fields) replaced: a raw body's copy."""
    return Redactor(secrets).text(text)


def url_ignored(url: str | None, prefixes: tuple[str, ...]) -> bool:
    """`url` starts with one of `prefixes` (a prefix's trailing slash is optional in the URL: `ws://h:1` too)."""
    if not url or not prefixes:
        return False
    return any(url.startswith(p) or (p.endswith("/") and url == p[:-1]) for p in prefixes)


def body_record(decoded: payload.Body, size: int) -> dict[str, Any]:
    """http.jsonl's `body`. Bytes Chrome did not hand over (over maxPostDataSize, a file streamed from disk) are
    `unavailable` (size: the Content-Length, filled in when the request's wire headers arrive), never `empty`;
    multipart file names are listed when the visible part names them."""
    if decoded.kind == "unavailable":
        return {"kind": "unavailable", "size": None, "complete": False}
    body: dict[str, Any] = {"kind": decoded.kind, "value": mask_fields(decoded.value), "size": size,
                            "complete": decoded.complete}
    if decoded.kind in ("text", "binary"):
        body["value"] = decoded.raw_text()[:BODY_LIMIT] if decoded.kind == "text" else None
    if decoded.files:
        body["files"] = [f.get("filename") for f in decoded.files]
    if decoded.decode:
        body["decode"] = decoded.decode
    return body


class HttpLog:
    """Joins Network events per request (by requestId across sessions: interceptor/netjoin.py) and writes one record
    when it ends."""

    def __init__(self, run_dir: Path, clock: RunClock, ignore: Iterable[str] = (),
                 secrets: Iterable[str] = ()) -> None:
        self.run_dir = run_dir
        self.ignore = tuple(u for u in ignore if u)
        self.secrets = [s for s in secrets if s and len(s) >= 3]
        self.ignored = 0  # records not written because they were the recorder's own traffic
        self._own_sessions: set[str | None] = set()
        self._own_ws: set[str] = set()
        self.clock = clock
        self.writer = JsonlWriter(run_dir / HTTP, clock, redactor=Redactor(self.secrets))
        self.records: list[dict[str, Any]] = []
        self.join: NetworkJoin[dict[str, Any]] = NetworkJoin(
            self._request, self._redirected, self._response, self._finished, wire_request=self._wire_headers)
        self._frames: Frames | None = None
        self._intercepted: dict[str, str] = {}
        self._ws: dict[str, str] = {}
        self.documents: dict[str, str] = {}  # network requestId -> URL of the document (or worker) that sent it
        self.senders: dict[str, str] = {}    # network requestId -> target type whose Network saw it first
        self._flush_timer: asyncio.TimerHandle | None = None
        self.closed = False
        self.bodies = ResponseBodies(body_record, self._emit)  # capped response bodies, read beside the loop

    def prepare(self, session: Session, frames: Frames) -> list[asyncio.Future]:
        if session.target_type not in NETWORK_TYPES:
            return []
        if url_ignored(session.target_info.get("url"), self.ignore):
            # The recorder's own target (its extension worker): nothing it does is the page's traffic. Network stays
            # enabled all the same (the interceptor reads held bodies through it): only the log skips it.
            self._own_sessions.add(session.id)
        self._frames = frames
        self.join.listen(session)
        on = session.on
        on("Network.webSocketCreated", lambda p: self._ws_created(session, p))
        on("Network.webSocketFrameSent", lambda p: self._ws_frame(session, p, "sent"))
        on("Network.webSocketFrameReceived", lambda p: self._ws_frame(session, p, "received"))
        # Small response-body buffers (interceptor/respbody.py): only capped bodies are kept for reading.
        return [session.send("Network.enable", {"maxPostDataSize": BODY_LIMIT, **BUFFERS})]

    def mark_intercepted(self, network_id: str, action: str) -> None:
        self._intercepted[network_id] = action
        rec = self.join.open.get(network_id)
        if rec is not None:
            rec["intercepted"] = action

    def _request(self, session: Session, p: dict[str, Any]) -> dict[str, Any] | None:
        req = p["request"]
        if p.get("documentURL"):
            self.documents[p["requestId"]] = p["documentURL"]
        self.senders.setdefault(p["requestId"], session.target_type)
        if session.id in self._own_sessions or url_ignored(req["url"], self.ignore):
            self.ignored += 1
            return None
        body = None
        if req.get("hasPostData"):
            raw, complete = payload.entries_bytes(req)
            decoded = payload.decode(raw, payload.header(req.get("headers", {}), "content-type"), (), complete)
            body = body_record(decoded, len(raw))
        frames = self._frames
        return {
            "type": "request", "id": p["requestId"], "target": session.target_type,
            "target_id": session.target_id, "frame": p.get("frameId"),
            "frame_url": frames.frame_url(session, p.get("frameId")) if frames and p.get("frameId") else None,
            "url": req["url"], "method": req["method"], "headers": redact_headers(req.get("headers")),
            "body": body, "resource_type": p.get("type"), "wall_time": p.get("wallTime"),
            "started": self.clock.now(), "response": None, "timing": None,
            "intercepted": self._intercepted.get(p["requestId"]),
        }

    def _redirected(self, rec: dict[str, Any], session: Session, response: dict[str, Any]) -> None:
        rec["response"] = self._response_record(response)
        self._emit(rec)

    def _wire_headers(self, rec: dict[str, Any], p: dict[str, Any]) -> None:
        """The headers as sent: the only place Chrome reports Content-Length (needed for an unavailable body)."""
        if not rec.get("body") or rec["body"].get("complete", True):
            return  # the usual case: nothing to learn from the wire headers
        length = payload.header(p.get("headers", {}), "content-length")
        if length.isascii() and length.isdigit() and len(length) < 16:
            rec["body"]["size"] = int(length)

    def _response_record(self, r: dict[str, Any]) -> dict[str, Any]:
        return {"status": r.get("status"), "status_text": r.get("statusText", ""),
                "headers": redact_headers(r.get("headers")), "mime": r.get("mimeType", ""),
                "protocol": r.get("protocol", "")}

    def _response(self, rec: dict[str, Any], session: Session, p: dict[str, Any]) -> None:
        rec["response"] = self._response_record(p["response"])
        rec["timing"] = p["response"].get("timing")

    def _finished(self, rec: dict[str, Any], session: Session, p: dict[str, Any], error: str | None) -> None:
        rec["size"] = p.get("encodedDataLength")
        if error:
            rec["error"] = error
            rec["canceled"] = p.get("canceled", False)
            if p.get("blockedReason"):
                rec["blocked_reason"] = p["blockedReason"]
        rec["intercepted"] = rec["intercepted"] or self._intercepted.get(rec["id"])
        if error is None and not self.closed:
            rec = {"t": self.clock.now(), **rec}  # when it finished, not when its body is read
            if self.bodies.finished(session, rec, rec["size"]):
                return
        self._emit(rec)

    def _ws_created(self, session: Session, p: dict[str, Any]) -> None:
        self._ws[p["requestId"]] = p["url"]
        if session.id in self._own_sessions or url_ignored(p["url"], self.ignore):
            self._own_ws.add(p["requestId"])
            self.ignored += 1
            return
        self._emit({"type": "websocket", "event": "created", "id": p["requestId"], "url": p["url"],
                    "target": session.target_type, "target_id": session.target_id})

    def _ws_frame(self, session: Session, p: dict[str, Any], direction: str) -> None:
        r = p.get("response", {})
        data = r.get("payloadData", "")
        if p["requestId"] in self._own_ws or session.id in self._own_sessions \
                or url_ignored(self._ws.get(p["requestId"]), self.ignore):
            self.ignored += 1
            return
        self._emit({"type": "websocket", "event": direction, "id": p["requestId"],
                    "url": self._ws.get(p["requestId"]), "target": session.target_type,
                    "opcode": r.get("opcode"), "payload": data[:BODY_LIMIT], "size": len(data)})

    def _emit(self, rec: dict[str, Any]) -> None:
        """Write a request (joined from its events in a dict) or a WebSocket event as its HttpRecord."""
        if self.closed:  # the interceptor is sealed (still attached, files finished): not logged
            return
        # One flush per FLUSH_DELAY, not per record: a flush per request cost ~100 us of the CPU the browser shares
        # (measured on 2 cores). If this process is killed, the browser dies with it (fail closed), so at most the
        # last FLUSH_DELAY of log is lost; interceptions.jsonl is still flushed per catch.
        rec = self.writer.write(HttpRecord.build(**rec), flush=False)
        self.records.append(rec)
        if self._flush_timer is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                self.writer.flush()
                return
            self._flush_timer = loop.call_later(FLUSH_DELAY, self._flush)

    def _flush(self) -> None:
        self._flush_timer = None
        self.writer.flush()

    async def settle(self, timeout: float = 5.0) -> None:
        """Wait (bounded) for the response bodies being read: call before close() while still attached."""
        await self.bodies.settle(timeout)

    def close(self) -> None:
        """Write requests still open (no answer yet) as incomplete, then http.har (once)."""
        if self.closed:
            return
        self.bodies.close()
        for rec in self.join.drain():
            rec["incomplete"] = True
            self._emit(rec)
        self.closed = True
        if self._flush_timer is not None:
            self._flush_timer.cancel()
            self._flush_timer = None
        self.writer.close()
        try:
            write_har(self.run_dir / HAR, self.records, self.clock)
        except OSError as exc:  # a full disk: reported to the run's write guard (raised without one)
            self.writer.fail(self.run_dir / HAR, exc)
