"""Layer 5 transport: the loopback WebSocket the extension's service worker sends browser actions to.

Why a token and acks: any page can open a socket to 127.0.0.1:PORT, so every message must carry the per-run token
(written only into this run's copy of the extension) or it is rejected and counted; the worker keeps each batch
until it is acknowledged, so a reconnect never loses events, and a re-sent batch is recognised and not written twice.
Page times (epoch ms) become `t` on the run clock here, in one place.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import secrets
from collections.abc import Callable
from typing import Any

from websockets.asyncio.server import ServerConnection, serve

from recorder.records import JsonlWriter, RunClock

# Field order of an actions.jsonl record (DESIGN.md layer 5); other fields follow.
FIELD_ORDER = ("t", "seq", "type", "x", "y", "page_x", "page_y", "key", "value", "target", "url", "frame_url", "tab",
               "frame", "target_id")


class ActionChannel:
    """Receives extension events, writes actions.jsonl with seq, calls `on_action(record)` for each one."""

    def __init__(self, writer: JsonlWriter, clock: RunClock, on_action: Callable[[dict], None] | None = None,
                 token: str | None = None) -> None:
        self.writer = writer
        self.clock = clock
        self.on_action = on_action
        self.token = token or secrets.token_urlsafe(24)
        self.port = 0
        self.seq = 0
        self.connected = asyncio.Event()
        self.stats: dict[str, int] = {"connections": 0, "authenticated": 0, "rejected": 0, "events": 0,
                                      "dropped": 0, "duplicates": 0}
        self._acked: dict[str, int] = {}  # client id -> last batch written
        self._server: Any = None
        self._last_message = 0.0

    async def start(self, port: int = 0) -> int:
        """Listen on 127.0.0.1 (a random port unless `port`: re-listening on the extension's configured port)."""
        self._server = await serve(self._handle, "127.0.0.1", port, max_size=16 * 2**20, ping_interval=None)
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    def _token_ok(self, msg: dict) -> bool:
        token = msg.get("token")
        return isinstance(token, str) and hmac.compare_digest(token.encode(), self.token.encode())

    async def _handle(self, ws: ServerConnection) -> None:
        self.stats["connections"] += 1
        authed = False
        async for raw in ws:
            self._last_message = asyncio.get_running_loop().time()
            try:
                msg = json.loads(raw)
                if not isinstance(msg, dict):
                    raise ValueError("not an object")
            except ValueError:
                self.stats["rejected"] += 1
                continue
            if not self._token_ok(msg):
                self.stats["rejected"] += 1
                await ws.close(4401, "bad token")
                return
            kind = msg.get("type")
            if kind == "hello":
                authed = True
                self.stats["authenticated"] += 1
                self.connected.set()
                await ws.send(json.dumps({"type": "welcome"}))
            elif kind == "events" and authed:
                self._write_batch(msg)
                await ws.send(json.dumps({"type": "ack", "batch": msg.get("batch")}))
            elif kind != "ping":
                self.stats["rejected"] += 1

    def _write_batch(self, msg: dict) -> None:
        client = str(msg.get("client", ""))
        batch = msg.get("batch")
        if isinstance(batch, int):
            if batch <= self._acked.get(client, 0):
                self.stats["duplicates"] += 1
                return
            self._acked[client] = batch
        for evt in msg.get("events") or []:
            if isinstance(evt, dict):
                self._write_event(evt)
        lost = msg.get("dropped")
        if isinstance(lost, int) and lost > 0:
            self._write_event({"type": "dropped", "count": lost, "source": "service_worker"})

    def _write_event(self, evt: dict) -> None:
        ts = evt.pop("ts", None)
        t = self.clock.from_epoch_ms(float(ts)) if isinstance(ts, (int, float)) else self.clock.now()
        self.seq += 1
        evt.pop("t", None)
        evt.pop("seq", None)
        evt.pop("token", None)
        record: dict[str, Any] = {"t": t, "seq": self.seq}
        for key in FIELD_ORDER[2:]:
            if key in evt:
                record[key] = evt.pop(key)
        record.update(evt)
        if record.get("type") == "dropped":
            self.stats["dropped"] += int(record.get("count") or 0)
        self.stats["events"] += 1
        self.writer.write(record)
        if self.on_action is not None:
            self.on_action(record)

    async def quiesce(self, idle: float = 0.3, limit: float = 3.0) -> None:
        """Wait until no message arrived for `idle` seconds (at most `limit`): lets in-flight batches land."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + limit
        while loop.time() < deadline and loop.time() - self._last_message < idle:
            await asyncio.sleep(0.05)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            try:
                await asyncio.wait_for(self._server.wait_closed(), 3)
            except asyncio.TimeoutError:
                pass
            self._server = None
