"""actions.jsonl order and the worker's first-run snapshot, over the real channel socket (batches sent as the worker
sends them): the start page is recorded once whatever order the snapshot and the live events arrive in, the file
is in `t` order with `seq` = line number, and `on_action` (the screenshot trigger) fires on receipt, never later."""

from __future__ import annotations

import asyncio
import json

import websockets

from recorder.channel import ActionChannel
from rundir.records import JsonlWriter, RunClock, read_jsonl
from tests.recorder.helpers import wait_for

URL = "http://127.0.0.1:1/start"


def _snapshot(ms: float, **extra) -> list[dict]:
    return [{"type": "tab_open", "tab": 7, "opener": None, "url": URL, "initial": True, "ts": ms},
            {"type": "navigate", "tab": 7, "frame": 0, "url": URL, "initial": True, "ts": ms, **extra},
            {"type": "load", "tab": 7, "frame": 0, "url": URL, "initial": True, "ts": ms}]


def _live(ms: float) -> list[dict]:
    return [{"type": "navigate", "tab": 7, "frame": 0, "url": URL, "transition": "typed", "ts": ms},
            {"type": "load", "tab": 7, "frame": 0, "url": URL, "ts": ms + 100}]


def _click(ms: float, x: int) -> list[dict]:
    return [{"type": "click", "tab": 7, "x": x, "y": 4, "ts": ms}]


class Worker:
    """A channel on a real socket and a client speaking the worker's protocol; `seen` is what on_action got."""

    def __init__(self, tmp_path, reorder_s: float | None = None) -> None:
        self.path = tmp_path / "actions.jsonl"
        self.clock = RunClock()
        self.writer = JsonlWriter(self.path, self.clock)
        self.seen: list[dict] = []
        self.chan = ActionChannel(self.writer, self.clock, on_action=self.seen.append, token="tok")
        if reorder_s is not None:
            self.chan.reorder_s = reorder_s
        self.batch = 0

    async def __aenter__(self) -> "Worker":
        port = await self.chan.start()
        self.ws = await websockets.connect(f"ws://127.0.0.1:{port}/")
        await self.ws.send(json.dumps({"type": "hello", "token": "tok", "client": "w"}))
        assert json.loads(await self.ws.recv()) == {"type": "welcome"}
        return self

    async def send(self, events: list[dict]) -> None:
        """One batch; returns when the channel acked it (it has been received and handled)."""
        self.batch += 1
        events = [{**e, "ts": self.clock.t0 * 1000 + e["ts"]} for e in events]
        await self.ws.send(json.dumps({"type": "events", "token": "tok", "client": "w", "batch": self.batch,
                                       "events": events}))
        assert json.loads(await self.ws.recv()) == {"type": "ack", "batch": self.batch}

    def written(self) -> list[dict]:
        recs, bad = read_jsonl(self.path)
        assert not bad
        return recs

    async def __aexit__(self, *exc: object) -> None:
        await self.ws.close()
        await self.chan.stop()
        self.writer.close()


def _drive(tmp_path, batches: list[list[dict]]) -> tuple[list[dict], Worker]:
    async def run() -> Worker:
        async with Worker(tmp_path) as w:
            for events in batches:
                await w.send(events)
        return w

    w = asyncio.run(run())
    recs = w.written()
    assert [r["seq"] for r in recs] == list(range(1, len(recs) + 1))
    assert [r["t"] for r in recs] == sorted(r["t"] for r in recs)
    return recs, w


def _kinds(recs: list[dict]) -> list[tuple[str, bool]]:
    return [(r["type"], r.get("initial", False)) for r in recs]


def test_snapshot_arriving_before_the_live_commit_is_replaced_by_it(tmp_path):
    """The snapshot looked at t=0.5 (start page committed and loaded); the live commit (t=0.2) and load (t=0.3)
    arrive after it. The live records are kept (exact times), in t order; the snapshot's dicts, already announced to
    the screenshotter, get the live records' seq so a shot of them links to what is in the file."""
    recs, w = _drive(tmp_path, [_snapshot(500), _live(200), _click(900, 3)])
    assert _kinds(recs) == [("navigate", False), ("load", False), ("tab_open", True), ("click", False)]
    assert w.chan.stats["snapshot_duplicates"] == 2
    announced = {(r["type"], r.get("initial", False)): r for r in w.seen}
    assert set(announced) == {("tab_open", True), ("navigate", True), ("load", True), ("click", False)}
    assert announced[("load", True)]["seq"] == recs[1]["seq"] and announced[("navigate", True)]["seq"] == 1


def test_snapshot_arriving_after_the_live_commit_is_dropped(tmp_path):
    recs, w = _drive(tmp_path, [_live(200), _snapshot(500), _click(900, 3)])
    assert _kinds(recs) == [("navigate", False), ("load", False), ("tab_open", True), ("click", False)]
    assert w.chan.stats["snapshot_duplicates"] == 2
    assert [(r["type"], r.get("initial", False)) for r in w.seen] == _kinds(recs)  # no trigger for the twins


def test_live_commit_arriving_after_the_snapshot_was_written_is_dropped(tmp_path):
    """The live twin comes later than the reorder window: the snapshot stays the one record of the start page."""
    async def run() -> Worker:
        async with Worker(tmp_path, reorder_s=0.05) as w:
            await w.send(_snapshot(500))
            await wait_for(lambda: len(w.written()) == 3, what="the snapshot written")
            await w.send(_live(200) + _click(900, 3))
        return w

    w = asyncio.run(run())
    recs = w.written()
    assert _kinds(recs) == [("tab_open", True), ("navigate", True), ("load", True), ("click", False)]
    assert w.chan.stats["snapshot_duplicates"] == 2 and w.chan.stats["late"] == 0


def test_a_later_navigation_to_the_same_url_is_kept(tmp_path):
    """A reload after the snapshot looked is a new event, not a twin."""
    recs, _w = _drive(tmp_path, [_snapshot(500), _live(2000)])
    assert _kinds(recs) == [("tab_open", True), ("navigate", True), ("load", True), ("navigate", False),
                            ("load", False)]


def test_a_pending_snapshot_navigation_is_replaced_by_its_commit(tmp_path):
    """The snapshot saw the start page still loading (`pending`, no load): its commit comes after it."""
    snap = _snapshot(500, pending=True)[:2]
    recs, w = _drive(tmp_path, [snap, _live(800)])
    assert _kinds(recs) == [("tab_open", True), ("navigate", False), ("load", False)]
    assert w.chan.stats["snapshot_duplicates"] == 1


def test_trigger_fires_on_receipt_while_the_file_waits_for_its_order(tmp_path):
    """A click arriving right after the snapshot is announced at once (its screenshot is not delayed) although
    its line waits for the reorder window; a late-arriving earlier record is written before it; seq_of() gives
    the announced dict its line number."""
    async def run() -> tuple[list, list, int | None, list]:
        async with Worker(tmp_path, reorder_s=1.0) as w:
            await w.send(_snapshot(500))
            await w.send(_click(900, 3))
            announced_now = [r["type"] for r in w.seen]
            written_now = w.written()
            await w.send(_click(700, 2))  # happened before the first click, arrived after it
            seq = await w.chan.seq_of(w.seen[-2], timeout=10)
            return announced_now, written_now, seq, [r["type"] for r in w.seen]

    announced_now, written_now, seq, announced = asyncio.run(run())
    assert announced_now == ["tab_open", "navigate", "load", "click"] and written_now == []
    recs, _ = read_jsonl(tmp_path / "actions.jsonl")
    assert [(r["type"], r.get("x")) for r in recs] == \
        [("tab_open", None), ("navigate", None), ("load", None), ("click", 2), ("click", 3)]
    assert seq == 5 and announced == ["tab_open", "navigate", "load", "click", "click"]


def test_a_record_later_than_the_window_keeps_the_file_sorted(tmp_path):
    """Beyond the reorder window a record is placed after what was written (t = the last written t) and keeps
    its own time in `t_event`: the file never goes back in time."""
    async def run() -> Worker:
        async with Worker(tmp_path, reorder_s=0.05) as w:
            await w.send(_click(900, 3))
            await wait_for(lambda: w.written(), what="the first click written")
            await w.send(_click(700, 2))
        return w

    w = asyncio.run(run())
    recs = w.written()
    assert [(r["x"], r["t"], r.get("t_event")) for r in recs] == [(3, 0.9, None), (2, 0.9, 0.7)]
    assert w.chan.stats["late"] == 1
