"""`--site-from` replay: every request the spec's rules do not catch is answered from a web archive
(Fetch.fulfillRequest) and none leaves the machine; each one is a line of RUN/replay.jsonl.

Why here and this way: the interceptor already pauses every request of every target (pages, iframes, workers,
service workers) before it is sent; in replay mode it pauses them all (`Fetch.enable` pattern `*`, also at browser
level) and answers each from archive.index (tiers exact, key, normalized, nearest; preflight, Range and HEAD
synthesized by archive.synth), so the rules are matched FIRST and the terminal request is caught and blocked exactly
as on the live site. Nothing is ever continued: a miss is a 404. Per target, before it runs: the HTTP cache off
(`Network.setCacheDisabled`) and WebSockets refused (`Network.setBlockedURLs`, listed as misses: a live socket
cannot be replayed faithfully from a recording).

Service workers run as they did when recorded: a page's request goes to its worker's fetch handler, and what the
worker fetches pauses on the worker's own target and is answered here like a page's (navigations, subresources,
CORS preflights, POST bodies, Range). Bypassing them instead (`Network.setBypassServiceWorker`, until issue 35)
changed the site: what the worker answers by itself (a synthesized or cached response) was then a miss. Its fresh
profile starts with no registration and an empty Cache Storage, so whatever a worker caches came from this archive.
What Chromium fetches for a worker past DevTools (its update check) meets the refusing proxy (clawrec/replay_net.py).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from archive.index import TIERS, ReplayIndex
from archive.synth import Answer, answer
from interceptor.cdp import CDPError, Session
from interceptor.httplog import url_ignored
from interceptor.paused import PausedRequest
from rundir.records import REPLAY, JsonlWriter, RunClock
from taskspec import payload

log = logging.getLogger("clawrec.replay")

WS_BLOCK = ["ws://*", "wss://*"]
NETWORK_TYPES = ("page", "iframe", "worker", "shared_worker", "service_worker")


class Replay:
    """Answers paused requests from `index`; counts hits by tier for the manifest's `site` block."""

    def __init__(self, index: ReplayIndex, run_dir: str | Path, clock: RunClock, source: str,
                 ignore: tuple[str, ...] | list[str] = (), info: dict[str, Any] | None = None) -> None:
        """`ignore`: URL prefixes of the recorder's own traffic (its extension, its channel socket): their targets
        keep their socket; their HTTP requests, if any, are answered like any other (nothing is continued)."""
        self.index = index
        self.ignore = tuple(u for u in ignore if u)
        self.timezone = str((info or {}).get("timezone") or "")
        self.source = source
        self.writer = JsonlWriter(Path(run_dir) / REPLAY, clock)
        self.hits = {t: 0 for t in (*TIERS, "synthesized")}
        self.misses = 0
        self.requests = 0
        self._sockets: set[str] = set()

    def prepare(self, session: Session) -> list[asyncio.Future]:
        """Best effort (never closes the target when refused: a worker may not support a command; whatever it
        requests is still paused and answered from the archive, so nothing can leave either way)."""
        if session.target_type not in NETWORK_TYPES or url_ignored(session.target_info.get("url"), self.ignore):
            return []
        session.on("Network.webSocketCreated", lambda p: self._socket(p))
        sent = [session.send("Network.setCacheDisabled", {"cacheDisabled": True}),
                session.send("Network.setBlockedURLs", {"urls": WS_BLOCK})]
        if session.target_type == "page" and self.timezone:  # the recorded timezone (an unknown id is refused)
            sent.append(session.send("Emulation.setTimezoneOverride", {"timezoneId": self.timezone}))
        for fut in sent:
            fut.add_done_callback(lambda f, t=session.target_type: _refused(f, t))
        return []

    def _socket(self, p: dict[str, Any]) -> None:
        if p["requestId"] in self._sockets or url_ignored(p.get("url"), self.ignore):
            return
        self._sockets.add(p["requestId"])
        self.requests += 1
        self.misses += 1
        self.writer.write({"method": "WEBSOCKET", "url": p.get("url"), "tier": "miss", "status": None,
                           "why": "WebSockets are refused in replay"})

    def answer(self, paused: PausedRequest) -> None:
        """Fulfill `paused` from the archive (a 404 if it is not there). Runs in the reader loop unless the body
        must be fetched first (Chrome leaves large bodies out of requestPaused)."""
        req = paused.params["request"]
        raw, _complete = payload.entries_bytes(req)
        if req.get("hasPostData") and not raw and paused.network_id:
            paused.session.spawn(self._answer_later(paused), f"replay-body:{paused.request_id}")
            return
        self._send(paused, raw)

    async def _answer_later(self, paused: PausedRequest) -> None:
        raw = b""
        try:
            got = await paused.session.send("Network.getRequestPostData", {"requestId": paused.network_id})
            raw = got.get("postData", "").encode("utf-8", "surrogateescape")
        except CDPError:
            pass
        if paused.answer is None:
            self._send(paused, raw)

    def _send(self, paused: PausedRequest, body: bytes) -> None:
        req = paused.params["request"]
        ans: Answer = answer(self.index, req["method"], req["url"], req.get("headers", {}), body)
        self.requests += 1
        if ans.tier == "miss":
            self.misses += 1
        else:
            self.hits[ans.tier if ans.tier in self.hits else "synthesized"] += 1
        line = {"method": req["method"], "url": req["url"], "tier": ans.tier, "status": ans.status,
                "resource_type": paused.params.get("resourceType")}
        if ans.synthesized:
            line["synthesized"] = ans.synthesized
        if ans.url and ans.url != req["url"]:
            line["recorded_url"] = ans.url
        self.writer.write(line, flush=False)
        paused.fulfill(ans.status, ans.headers, ans.body, replayed=True)

    def site(self) -> dict[str, Any]:
        """The manifest's `site` block."""
        served = self.requests - self.misses
        return {"mode": "archive", "source": self.source, "requests": self.requests,
                "hits_by_tier": dict(self.hits), "misses": self.misses,
                "hit_rate": round(served / self.requests, 4) if self.requests else None, "live_requests": 0}

    def close(self) -> None:
        self.writer.close()


def _refused(fut: asyncio.Future, target_type: str) -> None:
    if not fut.cancelled() and (exc := fut.exception()) is not None:
        log.debug("replay: %s refused a setting: %s", target_type, exc)
