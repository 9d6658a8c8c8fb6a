"""Layer 6: the page's DOM after each agent action, every frame of it, in RUN/dom.jsonl.zst (rundir/domfile.py).

Why CDP `DOMSnapshot.captureSnapshot` from the recorder (not rrweb in the page): it reads the DOM, the input values,
the layout boxes and a subset of computed styles from outside the page, so the instrument stays invisible (no
script, global or attribute in any world the page can see; tests/footprint); docs/explanation/dom-layer.md.

Why this shape (the screenshots' pattern, recorder/screenshots.py): its own CDP connection (a capture never waits
behind the interceptor's paused requests, nor delays them), captures asked by the action channel without awaiting
(`request()`), run as tasks one at a time per page, each ending in one record (the capture, or its `error`); the
record waits for its action's `seq` (`action_seq`), the capture never. Cross-origin iframes are targets of their own
(site-per-process): after the page, every iframe target whose parent frame is one of the captured documents' frames
is captured too (`frames`). `stop()` takes a `final` capture of each open page (the page as the run ended: what a
modal covered), lets captures under way land (bounded) and cancels the rest, each recording why.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from interceptor.cdp import CDPError, Connection
from recorder.screenshots import on_blank_page, pick_page, wants_shot
from recorder.targets import TargetTracker
from rundir.domfile import DomWriter
from rundir.layers import DomCapture
from rundir.records import DOM, RunClock
from rundir.redact import Redactor

# What the viewer and the diagnosis read: visibility and hit-testing, plus enough to render the page recognisably
# without its external stylesheets (the page's own <style> text is in the DOM).
COMPUTED_STYLES = ["display", "visibility", "opacity", "pointer-events", "position", "z-index", "overflow",
                   "color", "background-color", "font-size", "font-weight", "font-family", "text-align",
                   "border-top-width", "border-top-style", "border-top-color", "cursor",
                   "width", "padding-top", "padding-right", "padding-bottom", "padding-left", "margin-top",
                   "margin-right", "margin-bottom", "margin-left", "flex-direction", "justify-content", "align-items",
                   "gap", "grid-template-columns", "border-radius", "line-height", "top", "left", "box-sizing"]
CAPTURE = {"computedStyles": COMPUTED_STYLES, "includePaintOrder": True, "includeDOMRects": False}
ATTEMPT_S = 3.0
MAX_FRAMES = 20  # out-of-process iframes captured per page (ads can nest dozens)
CANCELLED = "not captured: the recording was finalized first"
LINK_S = 5.0

log = logging.getLogger(__name__)


class DomRecorder:
    def __init__(self, run_dir: str | Path, clock: RunClock, ws_url: str,
                 action_seq: Callable[[dict], Awaitable[int | None]] | None = None, timeout: float = 5.0) -> None:
        self.run_dir = Path(run_dir)
        self.clock = clock
        self.ws_url = ws_url
        self.timeout = timeout
        self.action_seq = action_seq
        self.redactor = Redactor()  # the run's secret values (learnt ones added as they are typed)
        self.writer: DomWriter | None = None
        self.cdp: Connection | None = None
        self.targets = TargetTracker(("page", "iframe"))  # pages and iframes (a frame's DOM is its own capture)
        self.locks: dict[str, asyncio.Lock] = {}
        self.tasks: set[asyncio.Task] = set()
        self._stopping = False
        self._closed = False
        self._seq = 0
        self.count = 0
        self.errors = 0
        self.skipped = 0
        self.failure: str | None = None  # the file could not be written (the layer is degraded)
        self.capture_s: list[float] = []  # seconds per capture (bench)

    @property
    def secrets(self) -> list[str]:
        return self.redactor.values

    @secrets.setter
    def secrets(self, values: list[str]) -> None:
        self.redactor.add(values)

    async def start(self) -> None:
        self.writer = DomWriter(self.run_dir / DOM, self.redactor)
        self.cdp = await Connection.open(self.ws_url)
        await self.targets.watch(self.cdp.root)

    def request(self, action: dict) -> None:
        """Queue a capture for an action record (non-blocking; called from the channel's handler)."""
        pages = self.targets.note(action)
        if not wants_shot(action):
            return
        if self._stopping:
            self.skipped += 1
            return
        tid = pick_page(action, pages, self.targets.active)
        if on_blank_page(action, pages.get(tid or "", "")):
            return
        self._launch(action, tid, "action")

    def _launch(self, action: dict | None, tid: str | None, reason: str) -> None:
        task = asyncio.create_task(self._capture(action, tid, reason), name=f"recorder-dom-{(tid or '')[:8]}")
        self.tasks.add(task)
        task.add_done_callback(self._landed)

    def _landed(self, task: asyncio.Task) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("DOM capture task failed: %r", task.exception())

    async def _session(self, tid: str) -> str:
        sid = self.targets.sessions.get(tid)
        if sid is None:
            assert self.cdp is not None
            res = await self.cdp.root.call("Target.attachToTarget", {"targetId": tid, "flatten": True},
                                           timeout=self.timeout)
            sid = self.targets.sessions[tid] = res["sessionId"]
        return sid

    async def _detach(self, tids: list[str]) -> None:
        """Leave the captured targets: a DevTools session left attached slows every later page load of that target
        (~9 % in `make bench BENCH=dom`); attaching again costs ~1 ms per capture."""
        for tid in tids:
            sid = self.targets.sessions.pop(tid, None)
            if sid is None or self.cdp is None or self.cdp.closed:
                continue
            try:
                await self.cdp.root.call("Target.detachFromTarget", {"sessionId": sid}, timeout=self.timeout)
            except Exception as exc:  # the target went away first: nothing stays attached
                log.debug("DOM layer: detach %s: %r", tid, exc)

    async def _snapshot(self, tid: str) -> dict[str, Any]:
        """One target's snapshot entry: {target, type, url, parent_frame, snapshot} or {…, error}."""
        info = self.targets.infos.get(tid, {})
        entry: dict[str, Any] = {"target": tid, "type": info.get("type", "page"), "url": info.get("url", "")}
        if info.get("parentFrameId"):
            entry["parent_frame"] = info["parentFrameId"]
        try:
            sid = await self._session(tid)
            session = self.cdp.session(sid) if self.cdp is not None else None
            if session is None:
                raise CDPError("DOMSnapshot.captureSnapshot", sid, "closed", "target detached")
            entry["snapshot"] = await session.call("DOMSnapshot.captureSnapshot", CAPTURE, timeout=ATTEMPT_S)
        except Exception as exc:  # CDPError or anything unexpected: recorded, never escapes the capture
            self.targets.sessions.pop(tid, None)
            entry["error"] = str(exc) or type(exc).__name__
        return entry

    async def _frames(self, tid: str) -> list[dict[str, Any]]:
        """The page, then its out-of-process iframes (children of any frame captured so far), level by level."""
        frames = [await self._snapshot(tid)]
        seen = {tid}
        while len(frames) < MAX_FRAMES:
            known = {fid for f in frames for fid in frame_ids(f)} | {f["target"] for f in frames}
            children = [t for t, i in self.targets.infos.items() if i.get("type") == "iframe" and t not in seen
                        and i.get("parentFrameId") in known][:MAX_FRAMES - len(frames)]
            if not children:
                break
            seen.update(children)
            frames += await asyncio.gather(*(self._snapshot(t) for t in children))
        return frames

    async def _capture(self, action: dict | None, tid: str | None, reason: str) -> None:
        asked, frames, error, took = self.clock.now(), [], CANCELLED, 0.0
        try:
            lock = self.locks.setdefault(tid or "", asyncio.Lock())
            async with lock:  # one capture of a page at a time: each after the one asked before it
                asked = self.clock.now()
                if tid is None:
                    error = "no page to capture"
                else:
                    frames = await self._frames(tid)
                    await self._detach([f["target"] for f in frames])
                    error = None if any("snapshot" in f for f in frames) else frames[0].get("error")
                took = round(self.clock.now() - asked, 3)
            if action is not None and "seq" not in action and self.action_seq is not None:
                try:
                    await asyncio.wait_for(self.action_seq(action), LINK_S)
                except asyncio.TimeoutError:
                    pass
        finally:  # cancelled too (finalize): the capture, or why there is none, is recorded once
            await self._write(action, tid, reason, asked, took, frames, error)

    async def _write(self, action: dict | None, tid: str | None, reason: str, t: float, took: float,
                     frames: list[dict[str, Any]], error: str | None) -> None:
        if self.writer is None or self._closed:
            return
        self._seq += 1
        keys: dict[str, Any] = {"t": t, "seq": self._seq,
                                "action_seq": action.get("seq") if action else None,
                                "action_type": action.get("type") if action else None, "reason": reason,
                                "target": tid, "url": self.targets.infos.get(tid or "", {}).get("url"), "took": took,
                                "styles": COMPUTED_STYLES, "frames": frames}
        if error is not None:
            keys["error"] = error
            self.errors += 1
        else:
            self.count += 1
            self.capture_s.append(took)
        record = DomCapture.build(**keys)
        try:  # redaction + compression off the event loop (a snapshot is 10-100 kB of JSON)
            await asyncio.shield(asyncio.to_thread(self.writer.write, record))
        except (OSError, ValueError) as exc:
            self.failure = self.failure or f"dom.jsonl.zst not written: {exc}"

    async def stop(self, final: bool = True, drain: float = 3.0, cancel_wait: float = 2.0) -> None:
        """A `final` capture of each open page, then the captures asked for (up to `drain` seconds); the rest are
        cancelled (each records why); then the connection and the file close."""
        self._stopping = True
        if final and self.cdp is not None and not self.cdp.closed:
            for tid, url in self.targets.pages.items():
                if not url.startswith(("about:blank", "chrome", "devtools")):
                    self._launch(None, tid, "final")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + drain
        while self.tasks and loop.time() < deadline:
            await asyncio.wait(list(self.tasks), timeout=max(0.01, deadline - loop.time()))
        pending = list(self.tasks)
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending, timeout=cancel_wait)
        self._closed = True
        if self.cdp is not None:
            await self.cdp.close()
        if self.writer is not None:
            self.writer.close()


def frame_ids(entry: dict[str, Any]) -> list[str]:
    """The frame ids of a captured target's documents (its own and its same-process child frames): an iframe
    target whose parentFrameId is one of them belongs under it."""
    snap = entry.get("snapshot") or {}
    strings = snap.get("strings") or []
    return [strings[d["frameId"]] for d in snap.get("documents") or []
            if isinstance(d.get("frameId"), int) and 0 <= d["frameId"] < len(strings)]
