"""Layer 2: a JPEG screenshot right after each agent action, linked to it in screenshots/screenshots.jsonl.

Why its own CDP connection: the interceptor's socket may hold paused requests; a capture queued behind them would
both delay the shot and the requests. Captures run one at a time in a worker task fed by `request()`, which the
action channel calls without awaiting, so recording actions never waits on a capture. The action's `seq` is given when
the channel writes it (in `t` order, a moment later): a shot's record waits for it (`action_seq`), its capture never.
Every capture asked for ends in one record (a file, or an `error`): `stop()` waits for captures under way (bounded),
then cancels the rest, which record why; nothing escapes a capture task and nothing is written after `stop()`.
The bound per action is `timeout` (5 s over all attempts; the first waits `ATTEMPT_S`, each after a timeout twice as
long: on a loaded machine a capture takes over a second, and cut at a fixed 1 s every attempt failed, issue 36's
-j 16 and -j 24): a capture that misses it is a record
with the CDP error, and the manifest counts every missing shot by its reason (`summary()`), so a run short of
screenshots under CPU starvation says why.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import re
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from interceptor.cdp import CDPError, Connection
from recorder.targets import TargetTracker
from rundir.layers import Screenshot
from rundir.records import SCREENSHOTS_DIR, SCREENSHOTS_INDEX, JsonlWriter, RunClock

# Action records that get a screenshot: click, end of a typing burst (input), Enter, end of a scroll,
# a finished page load after a navigation, a tab switch. `keydown` only for Enter.
SHOT_TYPES = {"click", "input", "change", "scroll", "load", "tab_switch"}
# A `change` of a text field follows its `input` record (already shot); only choices (select, checkbox…) get one.
TEXTUAL = {"input", "text", "email", "search", "tel", "url", "number", "password", "textarea"}


ATTEMPT_S = 1.0  # the first capture attempt (doubled after each timeout); `timeout` bounds all attempts for one action
MAX_INFLIGHT = 2  # captures of one page at once
LINK_S = 5.0  # how long a shot's record waits for its action's seq
CANCELLED = "not captured: the recording was finalized first"
LATE = "not captured: the action came after the recording began to finalize"

log = logging.getLogger(__name__)


def wants_shot(action: dict) -> bool:
    kind = action.get("type")
    if kind == "keydown":
        return action.get("key") == "Enter"
    if kind == "scroll":
        return action.get("final", True) is not False
    if kind == "navigate":  # a page load is shot at `load`; a single-page app's route change has none
        return action.get("via") == "history" and action.get("frame") == 0
    if kind == "change":
        return str((action.get("target") or {}).get("type", "")).lower() not in TEXTUAL
    return kind in SHOT_TYPES


def on_blank_page(action: dict, page_url: str = "") -> bool:
    """A blank new tab: nothing to see, never captured by a layer (capturing it while it waits for a debugger hangs);
    the DOM layer and the scale bench's completeness read the same rule."""
    return str(action.get("url") or page_url).startswith("about:blank")


def pick_page(action: dict, pages: dict[str, str], active: str | None) -> str | None:
    """The page (CDP targetId) an action happened in: its own target, else the active page among those showing its
    URL, else the last one showing it, else the active page, else any (the DOM layer picks the same way)."""
    tid = action.get("target_id")
    if tid in pages:
        return tid
    url = action.get("url")
    matches = [t for t, u in pages.items() if url and u == url]
    if active in matches or (not matches and active in pages):
        return active
    if matches:
        return matches[-1]
    return next(iter(pages), None)


class Screenshotter:
    def __init__(self, run_dir: str | Path, clock: RunClock, ws_url: str, quality: int = 80,
                 timeout: float = 5.0, action_seq: Callable[[dict], Awaitable[int | None]] | None = None) -> None:
        """`action_seq(action)`: waits for the seq of an action record handed to `request()` before it has one
        (ActionChannel.seq_of)."""
        self.run_dir = Path(run_dir)
        self.dir = self.run_dir / SCREENSHOTS_DIR
        self.clock = clock
        self.ws_url = ws_url
        self.quality = quality
        self.timeout = timeout
        self.ws_url = ws_url
        self.cdp: Connection | None = None  # our own connection: captures never wait behind paused requests
        self.action_seq = action_seq
        self.index: JsonlWriter | None = None
        self.secrets: list[str] = []  # replaced by [redacted] in screenshots.jsonl (the page URL may hold one)
        self.targets = TargetTracker()  # the pages, the active one, our sessions
        self.inflight: dict[str, int] = {}             # page -> captures under way
        self.waiting: dict[str, list[dict]] = {}       # page -> actions waiting for a free capture slot
        self.tasks: set[asyncio.Task] = set()
        self._attaching: dict[str, asyncio.Task] = {}
        self._closed = False
        self._stopping = False
        self._index_closed = False
        self._seq = 0
        self.count = 0
        self.errors = 0
        self.skipped = 0  # actions that arrived after stop() began: no capture, no record (counted, reason LATE)
        self.unlinked = 0  # shots written before their action's seq came (LINK_S): a file no action points to
        self.reasons: Counter[str] = Counter()  # why each record without an image has none
        self.latencies: list[float] = []     # seconds from the action's t to the capture
        self.browser_version = ""

    async def start(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        self.index = JsonlWriter(self.run_dir / SCREENSHOTS_INDEX, self.clock)
        self.index.secrets = self.secrets
        self.cdp = await Connection.open(self.ws_url)
        await self.targets.watch(self.cdp.root)
        version = await self.cdp.root.call("Browser.getVersion")
        self.browser_version = version.get("product", "")

    def request(self, action: dict) -> None:
        """Queue a capture for an action record (non-blocking; safe to call from the channel's handler)."""
        pages = self.targets.note(action)
        if not wants_shot(action):
            return
        if self._stopping:  # no record either: the action gets its seq only after the index has closed
            self.skipped += 1
            self.reasons[LATE] += 1
            return
        tid = pick_page(action, pages, self.targets.active)
        if on_blank_page(action, pages.get(tid or "", "")):
            return
        key = tid or ""
        if self.inflight.get(key, 0) < MAX_INFLIGHT:
            self._launch(key, [action])
        else:
            self.waiting.setdefault(key, []).append(action)

    def _launch(self, key: str, actions: list[dict]) -> None:
        """Capture now, even while an earlier capture of the page is still under way (it may hang during a
        navigation); past MAX_INFLIGHT, actions wait and then share one capture (one record and file each)."""
        self.inflight[key] = self.inflight.get(key, 0) + 1
        task = asyncio.create_task(self._capture(actions, key or None), name=f"recorder-shot-{key[:8]}")
        self.tasks.add(task)
        task.add_done_callback(lambda t: self._landed(t, key))

    def _landed(self, task: asyncio.Task, key: str) -> None:
        self.tasks.discard(task)
        self.inflight[key] -= 1
        if not task.cancelled() and task.exception() is not None:  # retrieved: never "exception never retrieved"
            log.error("screenshot task failed: %r", task.exception())
        if self.waiting.get(key) and not self._closed:
            self._launch(key, self.waiting.pop(key))

    async def _session(self, tid: str) -> str:
        sid = self.targets.sessions.get(tid)
        if sid is not None:
            return sid
        attach = self._attaching.get(tid)
        if attach is None:  # concurrent captures of a new page share one attachment
            attach = self._attaching[tid] = asyncio.create_task(
                self.cdp.root.call("Target.attachToTarget", {"targetId": tid, "flatten": True}, timeout=self.timeout))
            attach.add_done_callback(lambda t: self._attached(t, tid))
        res = await asyncio.shield(attach)
        sid = self.targets.sessions[tid] = res["sessionId"]
        return sid

    def _attached(self, task: asyncio.Task, tid: str) -> None:
        self._attaching.pop(tid, None)
        if not task.cancelled():
            task.exception()  # the captures waiting on it see the error; nobody else must be told

    async def _grab(self, tid: str) -> tuple[bytes, float]:
        """One JPEG of the page. A click that navigates swaps the page's document under us ("Not attached to an
        active page", or a capture is never answered while the new document loads): ask again; the next document
        is what the action led to. A capture not answered within its attempt stays asked: on a loaded machine the
        first answer may simply be late (issue 36: at -j 16 a capture took up to 2 s), so whichever capture
        answers first is taken, and each new attempt waits twice as long as the last."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        attempt = ATTEMPT_S
        asked_at: dict[asyncio.Future, float] = {}  # captures asked and not answered yet
        try:
            while True:
                sid = await self._session(tid)
                session = self.cdp.session(sid) if self.cdp is not None else None
                if session is None:
                    raise CDPError("Page.captureScreenshot", sid, "closed", "target detached")
                fut = session.send("Page.captureScreenshot",
                                   {"format": "jpeg", "quality": self.quality, "optimizeForSpeed": True})
                asked_at[fut] = self.clock.now()
                done, _ = await asyncio.wait(asked_at, timeout=max(0.1, min(attempt, deadline - loop.time())),
                                             return_when=asyncio.FIRST_COMPLETED)
                error: CDPError | None = None
                for answered in done:
                    asked = asked_at.pop(answered)
                    exc = CDPError("Page.captureScreenshot", sid, "closed", "session closed") \
                        if answered.cancelled() else answered.exception()
                    if exc is None:
                        return base64.b64decode(answered.result()["data"]), asked
                    error = exc if isinstance(exc, CDPError) else CDPError("Page.captureScreenshot", sid, "error",
                                                                           str(exc))
                if error is None:  # none answered in time: late (a loaded machine) or never (a navigation)
                    error = CDPError("Page.captureScreenshot", sid, "timeout", f"no reply within {self.timeout:g}s")
                    attempt *= 2
                if error.kind == "closed" or loop.time() > deadline - 0.1:
                    raise error
                if "No target" in error.message or "session" in error.message.lower():
                    self.targets.sessions.pop(tid, None)
                await asyncio.sleep(0.05)
        finally:
            for fut in asked_at:  # an answer arriving later is dropped by the connection (the future is done)
                fut.cancel()

    async def _capture(self, actions: list[dict], tid: str | None) -> None:
        url = self.targets.pages.get(tid or "", actions[-1].get("url"))
        asked, image, error, took = self.clock.now(), None, CANCELLED, None
        try:
            try:
                if tid is None:
                    raise CDPError("Page.captureScreenshot", None, "error", "no page to capture")
                (image, asked), error = await self._grab(tid), None
            except Exception as exc:  # CDPError or anything unexpected: recorded, never escapes the task
                image, error, asked = None, str(exc) or type(exc).__name__, self.clock.now()
            # `t` is when the capture was asked for: the browser grabs its next frame then; `took` is how long the
            # answer (encoding + transfer) took, which a loaded machine stretches.
            took = round(self.clock.now() - asked, 3)
            for action in actions:
                if "seq" not in action and self.action_seq is not None:
                    try:
                        await asyncio.wait_for(self.action_seq(action), LINK_S)
                    except asyncio.TimeoutError:
                        pass  # recorded without action_seq rather than lost
        finally:  # cancelled too (finalize): the shot, or why there is none, is recorded once
            self._write(actions, asked, took if took is not None else round(self.clock.now() - asked, 3), image,
                        error, tid, url)

    def _write(self, actions: list[dict], t: float, took: float, image: bytes | None, error: str | None,
               tid: str | None, url: str | None) -> None:
        """One record per action (a shared capture: one file each), linked by the action's seq."""
        assert self.index is not None
        if self._index_closed:  # cannot happen through stop(); a capture must never write to a closed index
            log.error("screenshot of %d action(s) ended after the index was closed", len(actions))
            return
        for action in actions:
            self._seq += 1
            record: dict[str, Any] = {"t": t, "seq": self._seq, "action_seq": action.get("seq"),
                                      "action_type": action.get("type"), "target": tid, "url": url, "took": took}
            if image is None:
                self.errors += 1
                self.reasons[_reason(error)] += 1
                self.index.write(Screenshot.build(**record, path=None, error=error))
                continue
            name = f"{self._seq:06d}.jpg"
            try:
                (self.dir / name).write_bytes(image)
            except OSError as exc:  # a full disk: no half image left; the run's guard stops the run
                (self.dir / name).unlink(missing_ok=True)
                self.errors += 1
                self.index.fail(self.dir / name, exc)
                continue
            self.count += 1
            self.unlinked += action.get("seq") is None
            if isinstance(action.get("t"), (int, float)):
                self.latencies.append(max(0.0, t + took - action["t"]))
            self.index.write(Screenshot.build(**record, path=f"{SCREENSHOTS_DIR}/{name}"))

    def summary(self) -> dict[str, Any]:
        """The layer's counts for the manifest (recorder.screenshots): every action that wanted a shot is `taken`, or
        a record without an image (`errors`), or came once stop() had begun (`skipped`: no record, its seq comes
        after the index closed); `reasons` counts why for both; `unlinked`: shots written before their action had a
        seq (LINK_S: the scale bench counts their actions as missing)."""
        return {"taken": self.count, "errors": self.errors, "skipped": self.skipped, "unlinked": self.unlinked,
                "reasons": dict(self.reasons)}

    async def stop(self, drain: float = 3.0, cancel_wait: float = 2.0) -> None:
        """Take the shots already asked for (up to `drain` seconds); cancel the rest (each records why, within
        `cancel_wait`); then close the connection and the index. Actions arriving from now on get no shot."""
        self._stopping = True
        loop = asyncio.get_running_loop()
        deadline = loop.time() + drain
        while self.tasks and loop.time() < deadline:
            await asyncio.wait(list(self.tasks), timeout=max(0.01, deadline - loop.time()))
        self._closed = True
        pending = list(self.tasks)
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending, timeout=cancel_wait)
        for key, actions in list(self.waiting.items()):  # never got a capture slot
            if self.index is not None:
                self._write(actions, self.clock.now(), 0.0, None, CANCELLED, key or None, None)
        self.waiting.clear()
        if self.cdp is not None:
            await self.cdp.close()
        self._index_closed = True
        if self.index is not None:
            self.index.close()


def _reason(error: str | None) -> str:
    """An error's kind for the manifest's counts: its text without what varies per capture (a CDP error's method
    and session in parentheses, seconds and ids as digits)."""
    text = re.sub(r"\s*\([^)]*\)", "", str(error or "unknown"))
    return re.sub(r"\d+(?:\.\d+)?", "N", text).strip()[:120] or "unknown"
