"""Layer 2: a JPEG screenshot right after each agent action, linked to it in screenshots/screenshots.jsonl.

Why its own CDP connection: the interceptor's socket may hold paused requests; a capture queued behind them would
both delay the shot and the requests. Captures run one at a time in a worker task fed by `request()`, which the
action channel calls without awaiting, so recording actions never waits on a capture.
"""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path
from typing import Any

from recorder.cdp_client import CDPClient, CDPError
from recorder.records import SCREENSHOTS_DIR, SCREENSHOTS_INDEX, JsonlWriter, RunClock

# Action records that get a screenshot: click, end of a typing burst (input), Enter, end of a scroll,
# a finished page load after a navigation, a tab switch. `keydown` only for Enter.
SHOT_TYPES = {"click", "input", "change", "scroll", "load", "tab_switch"}
# A `change` of a text field follows its `input` record (already shot); only choices (select, checkbox…) get one.
TEXTUAL = {"input", "text", "email", "search", "tel", "url", "number", "password", "textarea"}


def wants_shot(action: dict) -> bool:
    kind = action.get("type")
    if kind == "keydown":
        return action.get("key") == "Enter"
    if kind == "scroll":
        return action.get("final", True) is not False
    if kind == "change":
        return str((action.get("target") or {}).get("type", "")).lower() not in TEXTUAL
    return kind in SHOT_TYPES


class Screenshotter:
    def __init__(self, run_dir: str | Path, clock: RunClock, ws_url: str, quality: int = 80,
                 timeout: float = 3.0) -> None:
        self.run_dir = Path(run_dir)
        self.dir = self.run_dir / SCREENSHOTS_DIR
        self.clock = clock
        self.ws_url = ws_url
        self.quality = quality
        self.timeout = timeout
        self.cdp = CDPClient(ws_url)
        self.index: JsonlWriter | None = None
        self.pages: dict[str, str] = {}      # CDP targetId -> url (pages only)
        self.active: str | None = None       # last page that was switched to or acted in
        self.sessions: dict[str, str] = {}  # targetId -> sessionId on our connection
        self.queues: dict[str, asyncio.Queue] = {}
        self.workers: dict[str, asyncio.Task] = {}
        self._seq = 0
        self.count = 0
        self.errors = 0
        self.latencies: list[float] = []     # seconds from the action's t to the capture
        self.browser_version = ""

    async def start(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        self.index = JsonlWriter(self.run_dir / SCREENSHOTS_INDEX, self.clock)
        await self.cdp.connect()
        self.cdp.on("Target.targetCreated", self._on_target)
        self.cdp.on("Target.targetInfoChanged", self._on_target)
        self.cdp.on("Target.targetDestroyed", self._on_destroyed)
        self.cdp.on("Target.detachedFromTarget", self._on_detached)
        await self.cdp.send("Target.setDiscoverTargets", {"discover": True})
        version = await self.cdp.send("Browser.getVersion")
        self.browser_version = version.get("product", "")

    def _on_target(self, params: dict, _session: str | None) -> None:
        info = params.get("targetInfo", {})
        if info.get("type") == "page":
            self.pages[info["targetId"]] = info.get("url", "")

    def _on_destroyed(self, params: dict, _session: str | None) -> None:
        tid = params.get("targetId")
        self.pages.pop(tid, None)
        self.sessions.pop(tid, None)
        if self.active == tid:
            self.active = None

    def _on_detached(self, params: dict, _session: str | None) -> None:
        for tid, sid in list(self.sessions.items()):
            if sid == params.get("sessionId"):
                self.sessions.pop(tid, None)

    def request(self, action: dict) -> None:
        """Queue a capture for an action record (non-blocking; safe to call from the channel's handler)."""
        tid = action.get("target_id")
        if tid in self.pages and action.get("type") in ("tab_switch", "click", "keydown", "load"):
            self.active = tid
        if not wants_shot(action):
            return
        tid = self._pick_target(action)
        if str(action.get("url") or self.pages.get(tid or "", "")).startswith("about:blank"):
            return  # a blank new tab is nothing to see, and capturing it while it waits for a debugger hangs
        key = tid or ""
        if key not in self.queues:  # one worker per page: a page that cannot paint never delays the others
            self.queues[key] = asyncio.Queue()
            self.workers[key] = asyncio.create_task(self._run(self.queues[key]), name=f"recorder-shots-{key[:8]}")
        self.queues[key].put_nowait((action, tid))

    def _pick_target(self, action: dict) -> str | None:
        tid = action.get("target_id")
        if tid in self.pages:
            return tid
        url = action.get("url")
        matches = [t for t, u in self.pages.items() if url and u == url]
        if self.active in matches or (not matches and self.active in self.pages):
            return self.active
        if matches:
            return matches[-1]
        return next(iter(self.pages), None)

    async def _session(self, tid: str) -> str:
        sid = self.sessions.get(tid)
        if sid is None:
            res = await self.cdp.send("Target.attachToTarget", {"targetId": tid, "flatten": True},
                                      timeout=self.timeout)
            sid = self.sessions[tid] = res["sessionId"]
        return sid

    async def _run(self, queue: asyncio.Queue) -> None:
        """Capture for the oldest request; requests that queued meanwhile share the next capture (one record
        and file each), so a burst of actions never builds a backlog that makes every later shot late."""
        while True:
            items = [await queue.get()]
            while not queue.empty():
                items.append(queue.get_nowait())
            stop = None in items
            items = [i for i in items if i is not None]
            if items:
                await self._capture([a for a, _ in items], items[-1][1])
            if stop:
                return

    async def _capture(self, actions: list[dict], tid: str | None) -> None:
        assert self.index is not None
        url = self.pages.get(tid or "", actions[-1].get("url"))
        try:
            if tid is None:
                raise CDPError("Page.captureScreenshot", "no page to capture")
            sid = await self._session(tid)
            res = await self.cdp.send("Page.captureScreenshot", {"format": "jpeg", "quality": self.quality},
                                      session_id=sid, timeout=self.timeout)
            image, error = base64.b64decode(res["data"]), None
        except CDPError as exc:
            image, error = None, str(exc)
        t = self.clock.now()
        for action in actions:
            self._seq += 1
            record: dict[str, Any] = {"t": t, "seq": self._seq, "action_seq": action.get("seq"),
                                      "action_type": action.get("type"), "target": tid, "url": url}
            if image is None:
                self.errors += 1
                self.index.write({**record, "path": None, "error": error})
                continue
            name = f"{self._seq:06d}.jpg"
            (self.dir / name).write_bytes(image)
            self.count += 1
            if isinstance(action.get("t"), (int, float)):
                self.latencies.append(max(0.0, t - action["t"]))
            self.index.write({**record, "path": f"{SCREENSHOTS_DIR}/{name}"})

    async def stop(self, drain: float = 3.0) -> None:
        """Take the shots already queued (up to `drain` seconds), then close the connection."""
        for queue in self.queues.values():
            queue.put_nowait(None)
        if self.workers:
            _, pending = await asyncio.wait(list(self.workers.values()), timeout=drain)
            for task in pending:
                task.cancel()
        self.workers.clear()
        await self.cdp.close()
        if self.index is not None:
            self.index.close()
