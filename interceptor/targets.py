"""Attach to every target before it runs: pages, popups, iframes (cross-site ones are their own targets), dedicated,
shared and service workers.

Why this shape (measured on Debian Chromium): auto-attach with waitForDebuggerOnStart + flatten at
browser level and again on every session; the preparation commands (Network, Fetch, guard script) are PIPELINED
before `Runtime.runIfWaitingForDebugger` so Chrome applies them before the target runs a single request (awaiting
them one by one stalled a paused service worker ~15 s). A service worker attaches twice (browser level and under
its page): Fetch is enabled once per targetId or every request would pause twice. Dedicated workers have no Fetch
domain; their requests pause on the parent's session.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable

from interceptor.cdp import CDPError, Connection, Session

log = logging.getLogger("clawrec.targets")

AUTO_ATTACH = {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True}
FETCH_TYPES = ("page", "iframe", "service_worker", "shared_worker")
WORKER_TYPES = ("worker", "shared_worker", "service_worker")

# prepare(session, fetch_owner) queues the commands a target needs before it runs and returns their futures.
Prepare = Callable[[Session, bool], list[asyncio.Future]]


class Attacher:
    """Keeps one Session per attached target, prepares each before resuming it, tracks target URLs."""

    def __init__(self, conn: Connection, prepare: Prepare,
                 on_prepare_failed: Callable[[Session, BaseException], None] | None = None) -> None:
        self.conn = conn
        self.prepare = prepare  # called with owner=True again when a twin session takes over (see release)
        self.on_prepare_failed = on_prepare_failed
        self.fetch_owner: dict[str, str] = {}        # targetId -> sessionId that owns Fetch for it
        self.infos: dict[str, dict[str, Any]] = {}   # targetId -> latest targetInfo (browser-wide)
        self.attached = 0
        self._existing: list[asyncio.Task] | None = None  # preparations of the targets there at start()
        conn.on_attach.append(self._attached)
        conn.on_detach.append(self.release)

    async def start(self) -> None:
        """Turn auto-attach on at browser level; returns when Chrome confirmed it and the targets that already
        existed are prepared (Network/Fetch on). Why wait for those: they are not paused waiting for the debugger, so
        a navigation sent right after (the start page, on another connection) could otherwise begin before their
        Network domain is on, and its request would be missing from the HTTP log (seen under load)."""
        root = self.conn.root
        root.on("Target.targetInfoChanged", self._info_changed)
        root.on("Target.targetCreated", self._info_changed)
        await root.send("Target.setDiscoverTargets", {"discover": True})
        self._existing = []
        try:
            await root.send("Target.setAutoAttach", AUTO_ATTACH)
            if self._existing:
                await asyncio.wait(self._existing, timeout=10)
        finally:
            self._existing = None

    def _info_changed(self, params: dict[str, Any]) -> None:
        info = params["targetInfo"]
        self.infos[info["targetId"]] = info
        for s in self.conn.sessions.values():
            if s.target_id == info["targetId"]:
                s.target_info.update(info)

    def _attached(self, session: Session, params: dict[str, Any]) -> None:
        """Runs inside the reader loop: only queue commands (in order), never await."""
        self.attached += 1
        tid, ttype = session.target_id, session.target_type
        owner = False
        if ttype in FETCH_TYPES and tid not in self.fetch_owner:
            self.fetch_owner[tid] = session.id or ""
            owner = True
        try:
            futures = self.prepare(session, owner)
        except Exception as exc:
            futures = []
            self._failed(session, exc)
        session.send_quiet("Target.setAutoAttach", AUTO_ATTACH)
        if params.get("waitingForDebugger"):
            session.send_quiet("Runtime.runIfWaitingForDebugger")
        if futures:
            task = session.spawn(self._check(session, futures), f"prepare:{ttype}:{tid[:8]}")
            if self._existing is not None:
                self._existing.append(task)

    async def _check(self, session: Session, futures: list[asyncio.Future]) -> None:
        results = await asyncio.gather(*futures, return_exceptions=True)
        for r in results:
            if isinstance(r, CDPError) and r.kind in ("closed", "crashed"):
                continue  # the target went away (a service worker stopped with its context): nothing can leave
            if isinstance(r, BaseException):
                self._failed(session, r)
                return

    def _failed(self, session: Session, exc: BaseException) -> None:
        log.error("preparing %s %s failed: %s", session.target_type, session.target_info.get("url"), exc)
        if self.on_prepare_failed is not None:
            self.on_prepare_failed(session, exc)

    def release(self, session: Session) -> None:
        """A detached session gives up Fetch ownership; a twin session of the same target (a service worker is
        attached twice) takes over at once, so the target is never left without Fetch."""
        if self.fetch_owner.get(session.target_id) != session.id:
            return
        del self.fetch_owner[session.target_id]
        twin = next((s for s in self.conn.sessions.values()
                     if s.target_id == session.target_id and s is not session and not s.closed), None)
        if twin is not None:
            self.fetch_owner[twin.target_id] = twin.id or ""
            try:
                futures = self.prepare(twin, True)
            except Exception as exc:
                futures = []
                self._failed(twin, exc)
            if futures:
                twin.spawn(self._check(twin, futures), f"promote:{twin.target_type}:{twin.target_id[:8]}")
