"""The bodies of a service worker's own requests, read at the Fetch response stage for the archive (`--archive`).

Why not Network.getResponseBody like every other body (interceptor/capture.py): a worker that answers a page with
what it fetched (`e.respondWith(fetch(e.request))`, Workbox's strategies) or stores it (`cache.put`, precaching)
hands the response's data pipe on unread, so the worker's Network domain never holds the body and getResponseBody
answers an empty string (measured, Chromium 156: every exchange of a pass-through worker archived with 0 bytes while
the page's copy of the same response had them). Paused at the response stage, the body is read before the worker
gets it (`Fetch.getResponseBody`, then `Fetch.continueRequest`: Chrome serves the body it read). Only service
workers pay this round trip, only with `--archive`; nothing here decides whether a request is sent.
"""

from __future__ import annotations

import asyncio
import base64
import logging
from typing import Any

from interceptor.cdp import CDPError, Session

log = logging.getLogger("clawrec.capture")

RESPONSE_STAGE = {"urlPattern": "*", "requestStage": "Response"}
NO_BODY = (204, 205, 301, 302, 303, 304, 307, 308)
STREAMS = ("text/event-stream", "multipart/x-mixed-replace")  # never end: reading them whole would stall the worker


def is_response_stage(params: dict[str, Any]) -> bool:
    """A Fetch.requestPaused at the response stage (the request was already sent)."""
    return "responseStatusCode" in params or "responseErrorReason" in params


class WorkerBodies:
    """network requestId -> the body read at the response stage (None: not read, so the archive marks it cut)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.bodies: dict[str, bytes | None] = {}

    @staticmethod
    def patterns(session: Session) -> list[dict[str, str]]:
        """The extra Fetch pattern a target needs: a service worker's responses pause once, for their body."""
        return [RESPONSE_STAGE] if session.target_type == "service_worker" else []

    def paused(self, session: Session, params: dict[str, Any], closed: bool) -> None:
        """A response paused: read its body (off the reader loop), then let it go on; never leave it paused."""
        nid = params.get("networkId") or ""
        if closed or not self._readable(params):
            if nid and not closed and self._has_body(params):
                self.bodies[nid] = None  # a body we would not read whole (a stream, over the cap)
            session.send_quiet("Fetch.continueRequest", {"requestId": params["requestId"]})
            return
        session.spawn(self._read(session, params, nid), f"worker-body:{params['requestId']}")

    @staticmethod
    def _has_body(params: dict[str, Any]) -> bool:
        return not (params.get("responseErrorReason") or params.get("responseStatusCode") in NO_BODY
                    or params["request"].get("method") == "HEAD")

    def _readable(self, params: dict[str, Any]) -> bool:
        if not self._has_body(params):
            return False
        headers = {h.get("name", "").lower(): h.get("value", "") for h in params.get("responseHeaders") or []}
        if any(s in headers.get("content-type", "").lower() for s in STREAMS):
            return False
        length = headers.get("content-length", "")
        return not (length.isdigit() and int(length) > self.cap)

    async def _read(self, session: Session, params: dict[str, Any], nid: str) -> None:
        body: bytes | None = None
        try:
            got = await session.send("Fetch.getResponseBody", {"requestId": params["requestId"]})
            data = got.get("body") or ""
            body = base64.b64decode(data) if got.get("base64Encoded") else data.encode("utf-8")
        except CDPError as exc:
            log.debug("archive: a worker's body of %s was not read: %s", params["request"].get("url"), exc)
        finally:
            if nid:
                self.bodies[nid] = body if body is None or len(body) <= self.cap else None
            session.send_quiet("Fetch.continueRequest", {"requestId": params["requestId"]})

    def take(self, request_id: str) -> tuple[bool, bytes | None]:
        """(known, body) for a finished request: known False when the response stage never saw it."""
        if request_id not in self.bodies:
            return False, None
        return True, self.bodies.pop(request_id)
