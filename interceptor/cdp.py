"""A thin Chrome DevTools Protocol client on `websockets` (PyPI `pycdp` is an empty wheel).

Why hand-written: the interceptor needs flat sessions, strictly ordered pipelined commands (Fetch on before a paused
target resumes) and a reader loop that never awaits a handler. One `Connection` owns the websocket; one `Session`
object per CDP session owns its listeners and pending calls, which die with it.

Speed (a paused request waits on this process; every Network event costs CPU the browser shares on 2 cores):
orjson parses and writes messages, and events no session listens to are dropped before parsing (Chrome sends every
event of an enabled domain; about half of them, e.g. Network.dataReceived and the *ExtraInfo events, nobody reads).

Errors:
CDPError(method, session, kind)   kind: "error" (the browser answered an error), "closed" (connection or session
                                  went away before the answer), "crashed" (the target crashed), "timeout" (`call`)

The one CDP client of clawrec: the interceptor's connection, and the recorder's own second connection (screenshots
must never queue behind paused requests) and the start page's. `version_info`/`browser_ws_url` read /json/version.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import os
import urllib.request
from collections import defaultdict
from typing import Any, Callable

import orjson
import websockets
from websockets.asyncio.client import connect

log = logging.getLogger("clawrec.cdp")

Handler = Callable[[dict[str, Any]], Any]


class CDPError(Exception):
    """A CDP call failed; created when the command is sent so it always names the method and session."""

    def __init__(self, method: str, session: str | None, kind: str = "error", message: str = "",
                 code: int | None = None) -> None:
        self.method, self.session, self.kind, self.code = method, session, kind, code
        self.message = message
        where = f" session={session}" if session else ""
        super().__init__(f"CDP {kind} ({method}{where}): {message}")


class Session:
    """One CDP session (the browser's root session has id None). Listeners and pending calls belong to it."""

    def __init__(self, conn: "Connection", session_id: str | None, target_info: dict[str, Any] | None = None,
                 parent: "Session | None" = None) -> None:
        self.conn = conn
        self.id = session_id
        self.target_info = dict(target_info or {})
        self.parent = parent
        self.closed = False
        self.crashed = False
        self.tasks: set[asyncio.Task] = set()
        self._pending: dict[int, tuple[asyncio.Future, CDPError]] = {}
        self._listeners: dict[str, list[Handler]] = defaultdict(list)

    @property
    def target_id(self) -> str:
        return self.target_info.get("targetId", "")

    @property
    def target_type(self) -> str:
        return self.target_info.get("type", "browser" if self.id is None else "")

    def on(self, method: str, handler: Handler) -> None:
        """Call `handler(params)` for each `method` event. Sync handlers run in the reader loop (must not block);
        coroutine results are spawned as named tasks, never awaited by the reader."""
        self._listeners[method].append(handler)
        self.conn.listened.add(method)

    def send(self, method: str, params: dict[str, Any] | None = None) -> asyncio.Future:
        """Queue a command now (order is kept) and return a future for its result."""
        err = CDPError(method, self.id, "closed", "session closed before sending")
        fut: asyncio.Future = asyncio.get_running_loop().create_future()
        if self.closed or self.conn.closed:
            fut.set_exception(err)
            return fut
        msg_id = next(self.conn._ids)
        self._pending[msg_id] = (fut, err)
        self.conn._routes[msg_id] = self
        msg: dict[str, Any] = {"id": msg_id, "method": method, "params": params or {}}
        if self.id is not None:
            msg["sessionId"] = self.id
        self.conn._outbox.put_nowait(_dumps(msg))
        return fut

    async def call(self, method: str, params: dict[str, Any] | None = None, timeout: float = 10.0) -> dict[str, Any]:
        """`send` and wait at most `timeout` seconds: CDPError kind "timeout" when the browser does not answer."""
        try:
            return await asyncio.wait_for(self.send(method, params), timeout)
        except asyncio.TimeoutError:
            raise CDPError(method, self.id, "timeout", f"no reply within {timeout:g}s") from None

    def send_quiet(self, method: str, params: dict[str, Any] | None = None) -> asyncio.Future:
        """Best effort: a failure is logged at debug level, never raised or reported as unretrieved."""
        fut = self.send(method, params)
        fut.add_done_callback(_swallow)
        return fut

    def spawn(self, coro: Any, name: str) -> asyncio.Task:
        """Run a coroutine beside the reader loop; the task reference is kept until it finishes."""
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self.tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self.conn._handler_failed(task.get_name(), task.exception())

    def _resolve(self, msg_id: int, msg: dict[str, Any]) -> None:
        entry = self._pending.pop(msg_id, None)
        if entry is None:
            return
        fut, err = entry
        if fut.done():
            return
        if "error" in msg:
            e = msg["error"]
            err.kind, err.code, err.message = "error", e.get("code"), e.get("message", "")
            err.args = (f"CDP error ({err.method}{' session=' + err.session if err.session else ''}): "
                        f"{err.message}",)
            fut.set_exception(err)
        else:
            fut.set_result(msg.get("result", {}))

    def _emit(self, method: str, params: dict[str, Any]) -> None:
        for handler in list(self._listeners.get(method, ())):
            try:
                result = handler(params)
            except Exception as exc:  # a broken handler must not kill the reader loop; it is reported
                self.conn._handler_failed(f"{method} handler", exc)
                continue
            if asyncio.iscoroutine(result):
                self.spawn(result, f"cdp:{method}")

    def _close(self, kind: str, reason: str) -> None:
        if self.closed:
            return
        self.closed = True
        if self.crashed:
            kind, reason = "crashed", "target crashed"
        for msg_id, (fut, err) in list(self._pending.items()):
            self.conn._routes.pop(msg_id, None)
            if not fut.done():
                err.kind, err.message = kind, reason
                err.args = (f"CDP {kind} ({err.method}): {reason}",)
                fut.set_exception(err)
        self._pending.clear()
        self._listeners.clear()


# Off unless CLAWREC_CDP_COALESCE_MS is set: after each message read the socket is left unread that long, so what
# Chrome sends meanwhile is read in one wake-up. Measured (bench/http_cpu.py, 2026-11-29, load 6-16): 3 ms took this
# process from ~1.87 to ~1.65 ms CPU per request, the bare receiver from 1.23 to 0.80. Not on by default until the
# page-load bench has run with it (a paused request and a new target's attach wait up to that long more).
COALESCE_S = float(os.environ.get("CLAWREC_CDP_COALESCE_MS") or 0) / 1000
ALWAYS_PARSED = ("Target.attachedToTarget", "Target.detachedFromTarget", "Inspector.targetCrashed")
_EVENT_HEAD = '{"method":"'


def event_method(raw: str | bytes) -> str | None:
    """The method of an event message as Chrome writes it (`{"method":"X",...`), else None (parse it fully).

    Chrome serializes `method` first in every event and `id` first in every reply; anything else is parsed."""
    if isinstance(raw, bytes) or not raw.startswith(_EVENT_HEAD):
        return None
    end = raw.find('"', len(_EVENT_HEAD))
    return raw[len(_EVENT_HEAD):end] if end > 0 else None


def _dumps(msg: dict[str, Any]) -> str:
    try:
        return orjson.dumps(msg).decode()
    except orjson.JSONEncodeError:  # lone surrogates, huge ints: the stdlib writes them
        return json.dumps(msg)


def _loads(raw: str | bytes) -> dict[str, Any]:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:  # lone surrogates (page strings can hold them) are valid JSON orjson rejects
        return json.loads(raw)


def _swallow(fut: asyncio.Future) -> None:
    if not fut.cancelled() and fut.exception() is not None:
        log.debug("best-effort CDP call failed: %s", fut.exception())


class Connection:
    """The websocket to a browser endpoint. `root` is the browser session; child sessions appear on attach."""

    def __init__(self, ws: Any) -> None:
        self._ws = ws
        self._ids = itertools.count(1)
        self._routes: dict[int, Session] = {}
        self._outbox: asyncio.Queue[str] = asyncio.Queue()
        self.closed = False
        self.close_reason = ""
        self.deliberate = False
        self.listened: set[str] = set(ALWAYS_PARSED)  # event methods some session listens to (never shrinks)
        self.dropped = 0  # events dropped unparsed (nobody listens)
        self._held = False  # the socket is left unread for COALESCE_S (see _hold_reads)
        self.root = Session(self, None)
        self.sessions: dict[str, Session] = {}
        self.on_attach: list[Callable[[Session, dict[str, Any]], None]] = []
        self.on_detach: list[Callable[[Session], None]] = []
        self.on_close: list[Callable[["Connection"], None]] = []
        self.on_handler_error: list[Callable[[str, BaseException], None]] = []
        self._reader: asyncio.Task | None = None
        self._writer: asyncio.Task | None = None

    @classmethod
    async def open(cls, ws_url: str, timeout: float = 10.0) -> "Connection":
        ws = await asyncio.wait_for(connect(ws_url, max_size=None, ping_interval=None, compression=None,
                                            open_timeout=timeout), timeout)
        conn = cls(ws)
        conn._reader = asyncio.get_running_loop().create_task(conn._read(), name="cdp:reader")
        conn._writer = asyncio.get_running_loop().create_task(conn._write(), name="cdp:writer")
        return conn

    def socket_fd(self) -> int | None:
        """The TCP socket under the websocket (the fail-closed watchdog keeps a duplicate of it)."""
        sock = self._ws.transport.get_extra_info("socket") if self._ws.transport else None
        return sock.fileno() if sock is not None else None

    def session(self, session_id: str | None) -> Session | None:
        return self.root if session_id is None else self.sessions.get(session_id)

    async def _write(self) -> None:
        try:
            while True:
                data = await self._outbox.get()
                await self._ws.send(data)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._shutdown(f"write failed: {exc}")

    async def _read(self) -> None:
        reason = "connection closed by the browser"
        try:
            async for raw in self._ws:
                method = event_method(raw)
                if method is not None and method not in self.listened:
                    self.dropped += 1
                else:
                    self._dispatch(_loads(raw))
                if COALESCE_S and not self._held:
                    self._hold_reads()
        except websockets.ConnectionClosed as exc:
            reason = f"connection closed ({exc})"
        except asyncio.CancelledError:
            reason = "connection closed by the client"
        except Exception as exc:  # pragma: no cover - a bug in dispatch must still fail every pending call
            reason = f"reader failed: {exc!r}"
            log.exception("CDP reader failed")
        self._shutdown(reason)

    def _hold_reads(self) -> None:
        """Leave the socket unread for COALESCE_S: what Chrome sends meanwhile is read in one wake-up (the messages
        already read are still dispatched meanwhile)."""
        transport = self._ws.transport
        if transport is None or transport.is_closing() or self._library_paused():
            return
        self._held = True
        transport.pause_reading()
        asyncio.get_running_loop().call_later(COALESCE_S, self._release_reads, transport)

    def _release_reads(self, transport: Any) -> None:
        self._held = False
        if not transport.is_closing() and not self._library_paused():
            transport.resume_reading()

    def _library_paused(self) -> bool:
        """websockets' own flow control has paused reading (its queue of frames is full): only it may resume."""
        assembler = getattr(self._ws, "recv_messages", None)
        return bool(getattr(assembler, "paused", False))

    def _dispatch(self, msg: dict[str, Any]) -> None:
        if "id" in msg:
            session = self._routes.pop(msg["id"], None)
            if session is not None:
                session._resolve(msg["id"], msg)
            return
        method, params = msg.get("method", ""), msg.get("params", {})
        session = self.session(msg.get("sessionId"))
        if session is None:
            return
        if method == "Target.attachedToTarget":
            child = Session(self, params["sessionId"], params.get("targetInfo"), parent=session)
            self.sessions[child.id] = child
            for cb in list(self.on_attach):
                try:
                    cb(child, params)
                except Exception as exc:
                    self._handler_failed("attach handler", exc)
        elif method == "Target.detachedFromTarget":
            child = self.sessions.pop(params.get("sessionId", ""), None)
            if child is not None:
                session._emit(method, params)
                child._close("closed", "target detached")
                for cb in list(self.on_detach):
                    try:
                        cb(child)
                    except Exception as exc:
                        self._handler_failed("detach handler", exc)
                return
        elif method == "Inspector.targetCrashed":
            session.crashed = True
        session._emit(method, params)

    def _handler_failed(self, where: str, exc: BaseException) -> None:
        log.error("CDP %s failed: %r", where, exc)
        for cb in list(self.on_handler_error):
            cb(where, exc)

    def _shutdown(self, reason: str) -> None:
        if self.closed:
            return
        self.closed = True
        self.close_reason = reason
        for s in list(self.sessions.values()):
            s._close("closed", reason)
        self.sessions.clear()
        self.root._close("closed", reason)
        if self._writer is not None and not self._writer.done():
            self._writer.cancel()
        for cb in list(self.on_close):
            try:
                cb(self)
            except Exception:
                log.exception("CDP close callback failed")

    async def close(self) -> None:
        """Deliberate close: on_close callbacks see `deliberate=True` (no fail-closed kill)."""
        self.deliberate = True
        try:
            for _ in range(100):  # let queued commands (e.g. final continues) leave first
                if self._outbox.empty():
                    break
                await asyncio.sleep(0.01)
            await self._ws.close()
        except Exception:
            pass
        if self._reader is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self._reader), 5)
            except (asyncio.TimeoutError, asyncio.CancelledError, Exception):
                self._reader.cancel()
        self._shutdown("connection closed by the client")


def version_info(http_url: str, timeout: float = 5.0) -> dict[str, Any]:
    """GET /json/version of a running browser (blocking: call it in a thread from async code)."""
    with urllib.request.urlopen(f"{http_url.rstrip('/')}/json/version", timeout=timeout) as resp:
        return json.load(resp)


def browser_ws_url(browser: str, timeout: float = 10.0) -> str:
    """A browser-level websocket URL from `ws://…` (as is) or `http://host:port` (its /json/version)."""
    if browser.startswith(("ws://", "wss://")):
        return browser
    return str(version_info(browser, timeout)["webSocketDebuggerUrl"])
