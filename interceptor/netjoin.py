"""One request's Network events joined by requestId across every session of the connection: the one join of the
HTTP log (interceptor/httplog.py) and the archive capture (interceptor/capture.py).

Why by requestId and not per session (measured, Chromium 156, headless): a cross-site iframe's document is
announced and answered on its parent's session but finishes on the iframe's; a dedicated worker's script is
announced on its parent's session and answered and finished on the worker's; a worker's ExtraInfo arrives on its
parent's. A join per session left those records open (a worker script in http.jsonl without status). Chrome's
requestIds are unique browser-wide (a renderer's process id and counter, or a navigation's loader id), and a
redirect keeps its id: the hop before it ends with `redirectResponse`.

Why the owner's record is opaque here: the HTTP log and the archive keep different things of a request; the join
only finds the record again, on whatever session the next event comes.
"""

from __future__ import annotations

from typing import Any, Callable, Generic, TypeVar

from interceptor.cdp import Session

R = TypeVar("R")
Params = dict[str, Any]
EARLY_CAP = 10_000  # ExtraInfo kept for requests not announced yet (most never are: cached, not followed)


class NetworkJoin(Generic[R]):
    """Open requests by requestId. The owner's hooks:

    begin(session, p) -> record | None     Network.requestWillBeSent (None: not followed; its later events drop)
    redirected(record, session, response)  the hop ends: Chrome announced the next one with `redirectResponse`
    responded(record, session, p)          Network.responseReceived
    ended(record, session, p, error)       Network.loadingFinished (error None) or loadingFailed (errorText)
    wire_request / wire_response(record, p)  the *ExtraInfo events, only listened to when given (each one is a
                                           parsed event per request); kept until their request is announced
    """

    def __init__(self, begin: Callable[[Session, Params], R | None],
                 redirected: Callable[[R, Session, Params], None],
                 responded: Callable[[R, Session, Params], None],
                 ended: Callable[[R, Session, Params, str | None], None], *,
                 wire_request: Callable[[R, Params], None] | None = None,
                 wire_response: Callable[[R, Params], None] | None = None) -> None:
        self.begin, self.redirected, self.responded, self.ended = begin, redirected, responded, ended
        self.wire_request, self.wire_response = wire_request, wire_response
        self.open: dict[str, R] = {}
        self._early: dict[str, list[tuple[str, Params]]] = {}

    def listen(self, session: Session) -> None:
        """Follow the Network events of `session` (its Network.enable is the owner's)."""
        on = session.on
        on("Network.requestWillBeSent", lambda p: self._request(session, p))
        on("Network.responseReceived", lambda p: self._response(session, p))
        on("Network.loadingFinished", lambda p: self._end(session, p, None))
        on("Network.loadingFailed", lambda p: self._end(session, p, p.get("errorText") or "failed"))
        if self.wire_request is not None:
            on("Network.requestWillBeSentExtraInfo", lambda p: self._wire("request", p))
        if self.wire_response is not None:
            on("Network.responseReceivedExtraInfo", lambda p: self._wire("response", p))

    def _request(self, session: Session, p: Params) -> None:
        rid = p["requestId"]
        prev = self.open.get(rid)
        if prev is not None:
            if not p.get("redirectResponse"):
                return  # the same request announced again on a second session: the first announcer keeps it
            del self.open[rid]
            self.redirected(prev, session, p["redirectResponse"])
        rec = self.begin(session, p)
        early = self._early.pop(rid, None)
        if rec is None:
            return
        self.open[rid] = rec
        for kind, params in early or ():
            self._deliver(kind, rec, params)

    def _response(self, session: Session, p: Params) -> None:
        rec = self.open.get(p["requestId"])
        if rec is not None:
            self.responded(rec, session, p)

    def _end(self, session: Session, p: Params, error: str | None) -> None:
        rec = self.open.pop(p["requestId"], None)
        if rec is not None:
            self.ended(rec, session, p, error)

    def _wire(self, kind: str, p: Params) -> None:
        rid = p.get("requestId", "")
        rec = self.open.get(rid)
        if rec is not None:
            self._deliver(kind, rec, p)
            return
        self._early.setdefault(rid, []).append((kind, p))
        if len(self._early) > EARLY_CAP:  # ExtraInfo of requests never announced: forget the oldest
            self._early.pop(next(iter(self._early)))

    def _deliver(self, kind: str, rec: R, p: Params) -> None:
        hook = self.wire_request if kind == "request" else self.wire_response
        if hook is not None:
            hook(rec, p)

    def drain(self) -> list[R]:
        """The records still open (no end yet), removed: the owner writes them as cut at close."""
        recs = list(self.open.values())
        self.open.clear()
        self._early.clear()
        return recs
