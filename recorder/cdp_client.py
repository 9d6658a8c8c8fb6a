"""A minimal CDP client for the recorder's own browser connection (screenshots).

Why not the interceptor's: screenshots must never queue behind paused requests, so the recorder opens a second
browser-level websocket. Only what the recorder needs: send/await with flattened sessions, events by method.
The reader loop never awaits a reply; pending calls fail when the socket closes.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable
from typing import Any

import websockets


class CDPError(RuntimeError):
    """A CDP call failed (`kind`: error | closed | timeout); the message names the method."""

    def __init__(self, method: str, message: str, kind: str = "error") -> None:
        super().__init__(f"CDP {method}: {message}")
        self.method = method
        self.kind = kind


class CDPClient:
    def __init__(self, ws_url: str) -> None:
        self.ws_url = ws_url
        self._ws: Any = None
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[asyncio.Future, str, str | None]] = {}
        self._handlers: dict[str, list[Callable[[dict, str | None], None]]] = {}
        self._reader: asyncio.Task | None = None
        self.closed = asyncio.Event()

    async def connect(self) -> "CDPClient":
        self._ws = await websockets.connect(self.ws_url, max_size=None, ping_interval=None, open_timeout=10)
        self._reader = asyncio.create_task(self._read(), name="recorder-cdp-reader")
        return self

    def on(self, method: str, handler: Callable[[dict, str | None], None]) -> None:
        """Register a synchronous handler (params, session_id); handlers that need I/O spawn a task."""
        self._handlers.setdefault(method, []).append(handler)

    async def send(self, method: str, params: dict | None = None, session_id: str | None = None,
                   timeout: float = 10.0) -> dict:
        if self._ws is None or self.closed.is_set():
            raise CDPError(method, "connection closed", "closed")
        msg_id = next(self._ids)
        fut: asyncio.Future = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = (fut, method, session_id)
        msg: dict[str, Any] = {"id": msg_id, "method": method, "params": params or {}}
        if session_id:
            msg["sessionId"] = session_id
        try:
            await self._ws.send(json.dumps(msg))
            return await asyncio.wait_for(fut, timeout)
        except asyncio.TimeoutError:
            raise CDPError(method, f"no reply within {timeout:.0f}s", "timeout") from None
        except websockets.ConnectionClosed:
            raise CDPError(method, "connection closed", "closed") from None
        finally:
            self._pending.pop(msg_id, None)

    async def _read(self) -> None:
        try:
            async for raw in self._ws:
                msg = json.loads(raw)
                if "id" in msg:
                    entry = self._pending.get(msg["id"])
                    if entry and not entry[0].done():
                        if "error" in msg:
                            entry[0].set_exception(CDPError(entry[1], msg["error"].get("message", str(msg["error"]))))
                        else:
                            entry[0].set_result(msg.get("result", {}))
                    continue
                if msg.get("method") == "Target.detachedFromTarget":
                    self._fail_session(msg.get("params", {}).get("sessionId"))
                for handler in self._handlers.get(msg.get("method", ""), ()):
                    try:
                        handler(msg.get("params", {}), msg.get("sessionId"))
                    except Exception:  # a broken handler must not stop the reader
                        pass
        except websockets.ConnectionClosed:
            pass
        finally:
            self.closed.set()
            for fut, method, _ in list(self._pending.values()):
                if not fut.done():
                    fut.set_exception(CDPError(method, "connection closed", "closed"))

    def _fail_session(self, session_id: str | None) -> None:
        """A detached session (page closed, crashed) answers nothing more: fail its pending calls now."""
        for fut, method, sid in list(self._pending.values()):
            if sid is not None and sid == session_id and not fut.done():
                fut.set_exception(CDPError(method, "target detached", "closed"))

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            try:
                await asyncio.wait_for(self._reader, 5)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                self._reader.cancel()
        self.closed.set()
