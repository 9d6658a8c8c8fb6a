"""Layer 5 transport: the loopback WebSocket the extension's service worker sends browser actions to.

Why a token and acks: any page can open a socket to 127.0.0.1:PORT, so every message must carry the per-run token
(written only into this run's copy of the extension) or it is rejected and counted; the worker keeps each batch
until it is acknowledged, so a reconnect never loses events, and a re-sent batch is recognised and not written twice.
Page times (epoch ms) become `t` on the run clock here, in one place.

Order and triggers: `on_action(record)` is called as soon as a record arrives (screenshots must never wait), while
the file is written in `t` order: each record waits REORDER_S after arrival for late records with an earlier `t`
(the worker's and the pages' events travel different paths). `seq` is the line number, given at write time and set
on the same dict `on_action` received; `await seq_of(record)` waits for it.

The worker's first-run snapshot (`initial: true`: the tabs as they were before its listeners existed) may report the
same state as a live event (the start page's commit). A live event that happened before the snapshot looked (or, for
a snapshot of a pending navigation, its commit) is the same event: one of the two is written, the live one if the
snapshot is not written yet (its time is exact); the dropped one's dict gets the kept one's `seq`. A snapshot record
of a state an earlier snapshot already reported (a repeated snapshot) is dropped the same way.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from rundir.layers import Action
from rundir.records import JsonlWriter, RunClock

# Field order of an actions.jsonl record (DESIGN.md layer 5); other fields follow.
FIELD_ORDER = ("t", "seq", "type", "x", "y", "page_x", "page_y", "key", "value", "target", "url", "frame_url", "tab",
               "frame", "target_id")
REORDER_S = 0.3  # how long a record waits for late records with an earlier `t` (observed disorder < 0.1 s)
TWIN_EPS_S = 0.05  # clock granularity between a live event's time and the snapshot's look at the tabs
PENDING_TWIN_S = 15.0  # a snapshot of a not yet committed navigation matches the first live commit within this
SNAPSHOT_TYPES = ("tab_open", "navigate", "load")


def snapshot_key(record: dict) -> tuple | None:
    """What a snapshot record and a live one must share to be one event: the tab (+ main-frame URL)."""
    kind = record.get("type")
    if kind not in SNAPSHOT_TYPES or record.get("frame", 0) != 0:
        return None
    return (kind, record.get("tab")) if kind == "tab_open" else (kind, record.get("tab"), record.get("url"))


def twins(snap: dict, live: dict) -> bool:
    """The live record describes the state the snapshot saw: it happened before the snapshot looked at the tabs (a
    tab id is opened once; a pending navigation commits after the look)."""
    if snap["type"] == "tab_open":
        return True
    gap = live.get("t_event", live["t"]) - snap.get("t_event", snap["t"])  # own times, not a late record's place
    return gap <= (PENDING_TWIN_S if snap.get("pending") else TWIN_EPS_S)


async def _reply(ws: ServerConnection, msg: dict) -> None:
    """Send a reply unless the client is gone (the connection closed between its message and this reply)."""
    try:
        await ws.send(json.dumps(msg))
    except ConnectionClosed:
        pass


@dataclass
class _Held:
    """A record waiting to be written; `aliases` are dropped twins whose dicts get its seq."""
    record: dict
    n: int
    release: float
    aliases: list[dict] = field(default_factory=list)


class ActionChannel:
    """Receives extension events, writes actions.jsonl in `t` order with seq, calls `on_action(record)` for each
    one on receipt (a snapshot record replaced by its live twin is announced once)."""

    def __init__(self, writer: JsonlWriter, clock: RunClock, on_action: Callable[[dict], None] | None = None,
                 token: str | None = None, on_secret: Callable[[str], None] | None = None) -> None:
        self.writer = writer
        self.clock = clock
        self.on_action = on_action
        self.on_secret = on_secret  # told the value typed into a secret input (before its record is written)
        self.token = token or secrets.token_urlsafe(24)
        self.port = 0
        self.seq = 0
        self.connected = asyncio.Event()
        self.stats: dict[str, int] = {"connections": 0, "authenticated": 0, "rejected": 0, "events": 0,
                                      "dropped": 0, "duplicates": 0, "snapshot_duplicates": 0, "late": 0,
                                      "after_close": 0}
        self.reorder_s = REORDER_S
        self._acked: dict[str, int] = {}  # client id -> last batch written
        self._server: Any = None
        self._last_message = 0.0
        self._held: dict[int, _Held] = {}  # id(record) -> record waiting for its write
        self._arrivals = 0
        self._last_t = float("-inf")  # `t` of the last record written
        self._timer: asyncio.TimerHandle | None = None
        self._snaps: dict[tuple, dict] = {}  # snapshot records still without a live twin
        self._seen: dict[tuple, dict] = {}  # last record kept per snapshot key (live or snapshot)
        self._waiters: dict[int, asyncio.Future] = {}  # id(record) -> seq_of() waiting for its write

    async def start(self, port: int = 0) -> int:
        """Listen on 127.0.0.1 (a random port unless `port`: re-listening on the extension's configured port)."""
        self._server = await serve(self._handle, "127.0.0.1", port, max_size=16 * 2**20, ping_interval=None)
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    def _token_ok(self, msg: dict) -> bool:
        token = msg.get("token")
        return isinstance(token, str) and hmac.compare_digest(token.encode(), self.token.encode())

    async def _handle(self, ws: ServerConnection) -> None:
        """One client. A client that goes away (the browser closed or killed, even while a reply is being sent)
        ends the connection quietly: what it sent is written, and the worker re-sends any batch it has no ack for
        (recognised by its number), so a lost reply loses nothing."""
        self.stats["connections"] += 1
        authed = False
        try:
            async for raw in ws:
                authed = await self._message(ws, raw, authed)
                if authed is None:
                    return
        except ConnectionClosed:  # closed without a close frame: a network failure, a killed browser
            pass

    async def _message(self, ws: ServerConnection, raw: str | bytes, authed: bool) -> bool | None:
        """Handle one message; returns whether the client is authenticated (None: connection closed here)."""
        self._last_message = asyncio.get_running_loop().time()
        try:
            msg = json.loads(raw)
            if not isinstance(msg, dict):
                raise ValueError("not an object")
        except ValueError:
            self.stats["rejected"] += 1
            return authed
        if not self._token_ok(msg):
            self.stats["rejected"] += 1
            await ws.close(4401, "bad token")
            return None
        kind = msg.get("type")
        if kind == "hello":
            authed = True
            self.stats["authenticated"] += 1
            self.connected.set()
            await _reply(ws, {"type": "welcome"})
        elif kind == "events" and authed:
            self._write_batch(msg)
            await _reply(ws, {"type": "ack", "batch": msg.get("batch")})
        elif kind != "ping":
            self.stats["rejected"] += 1
        return authed

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
        typed = evt.pop("secret_value", None)  # never written: a run secret from now on
        if isinstance(typed, str) and typed and self.on_secret is not None:
            self.on_secret(typed)
        ts = evt.pop("ts", None)
        t = self.clock.from_epoch_ms(float(ts)) if isinstance(ts, (int, float)) else self.clock.now()
        evt.pop("t", None)
        evt.pop("seq", None)
        evt.pop("token", None)
        record: dict[str, Any] = {"t": t}
        for key in FIELD_ORDER[2:]:
            if key in evt:
                record[key] = evt.pop(key)
        record.update(evt)
        aliases = self._dedupe(record)
        if aliases is None:
            return
        self._hold(record, aliases)
        if self.on_action is not None and not aliases:  # a replaced snapshot record was announced already
            self.on_action(record)

    def _dedupe(self, record: dict) -> list[dict] | None:
        """None: the record is a snapshot/live twin of one already kept. Else the dropped twins it replaces."""
        key = snapshot_key(record)
        if key is None:
            return []
        if record.get("initial"):  # a state already recorded (live, or by an earlier snapshot) is not recorded again
            prev = self._seen.get(key)
            if prev is not None and twins(record, prev):
                self._merge(record, prev)
                return None
            self._snaps[key] = self._seen[key] = record
            return []
        self._seen[key] = record
        snap = self._snaps.get(key)
        if snap is None or not twins(snap, record):
            return []
        del self._snaps[key]
        held = self._held.pop(id(snap), None)
        if held is None:  # the snapshot is written already: it stays the record of this event
            self._merge(record, snap)
            return None
        self.stats["snapshot_duplicates"] += 1
        return [snap, *held.aliases]

    def _merge(self, dropped: dict, kept: dict) -> None:
        self.stats["snapshot_duplicates"] += 1
        if "seq" in kept:
            self._resolve(dropped, kept["seq"])
        elif id(kept) in self._held:
            self._held[id(kept)].aliases.append(dropped)

    def _hold(self, record: dict, aliases: list[dict]) -> None:
        if record["t"] < self._last_t:  # later records are written already: placed now, its own time kept
            self.stats["late"] += 1
            record["t_event"] = record["t"]
            record["t"] = self._last_t
        self._arrivals += 1
        loop = asyncio.get_running_loop()
        self._held[id(record)] = _Held(record, self._arrivals, loop.time() + self.reorder_s, aliases)
        if self._timer is None:
            self._timer = loop.call_later(self.reorder_s, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        self.flush(everything=False)

    def flush(self, everything: bool = True) -> None:
        """Write held records in `t` order: all of them, or (timer) up to the last one whose wait is over."""
        if self._timer is not None and everything:
            self._timer.cancel()
            self._timer = None
        entries = sorted(self._held.values(), key=lambda e: (e.record["t"], e.n))
        if everything:
            cut = len(entries)
        else:
            now = asyncio.get_running_loop().time()
            cut = max((i + 1 for i, e in enumerate(entries) if e.release <= now), default=0)
        for entry in entries[:cut]:
            del self._held[id(entry.record)]
            self._emit(entry)
        if self._held and self._timer is None and not everything:
            loop = asyncio.get_running_loop()
            due = min(e.release for e in self._held.values())
            self._timer = loop.call_later(max(0.0, due - loop.time()), self._on_timer)

    def _emit(self, entry: _Held) -> None:
        record = entry.record
        self.seq += 1
        self._last_t = max(self._last_t, record["t"])
        line = {"t": record["t"], "seq": self.seq, **{k: v for k, v in record.items() if k not in ("t", "seq")}}
        for rec in (record, *entry.aliases):
            self._resolve(rec, self.seq)
        if record.get("type") == "dropped":
            self.stats["dropped"] += int(record.get("count") or 0)
        self.stats["events"] += 1
        try:
            self.writer.write(Action.build(**line))
        except ValueError:  # the run was finalized (crash path): nothing may be written any more
            self.stats["after_close"] += 1

    def _resolve(self, record: dict, seq: int) -> None:
        record["seq"] = seq
        waiter = self._waiters.pop(id(record), None)
        if waiter is not None and not waiter.done():
            waiter.set_result(seq)

    async def seq_of(self, record: dict, timeout: float = 5.0) -> int | None:
        """The `seq` a record received from `on_action` gets when it is written (None if not within `timeout`)."""
        if "seq" in record:
            return record["seq"]
        waiter = self._waiters.get(id(record))
        if waiter is None:
            waiter = self._waiters[id(record)] = asyncio.get_running_loop().create_future()
        try:
            return await asyncio.wait_for(asyncio.shield(waiter), timeout)
        except asyncio.TimeoutError:
            if self._waiters.get(id(record)) is waiter:
                del self._waiters[id(record)]
            return record.get("seq")

    async def quiesce(self, idle: float = 0.3, limit: float = 3.0) -> None:
        """Wait until no message arrived for `idle` seconds (at most `limit`): lets in-flight batches land."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + limit
        while loop.time() < deadline and loop.time() - self._last_message < idle:
            await asyncio.sleep(0.05)

    async def stop(self) -> None:
        """Write what is held, stop listening (start(port) may listen again: the extension reconnects)."""
        self.flush()
        if self._server is not None:
            self._server.close()
            try:
                await asyncio.wait_for(self._server.wait_closed(), 3)
            except asyncio.TimeoutError:
                pass
            self._server = None
