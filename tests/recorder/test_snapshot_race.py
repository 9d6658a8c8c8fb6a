"""The worker's first-run snapshot (`initial: true`) racing the live events of the start page's navigation: the
start page is recorded once, and the first records are in `t` order whatever order the two arrive in."""

from __future__ import annotations

import asyncio
import json

import websockets

from recorder.channel import ActionChannel
from recorder.records import JsonlWriter, RunClock, read_jsonl

URL = "http://127.0.0.1:1/start"


def _snapshot(ms: float) -> list[dict]:
    return [{"type": "tab_open", "tab": 7, "opener": None, "url": URL, "initial": True, "ts": ms},
            {"type": "navigate", "tab": 7, "frame": 0, "url": URL, "initial": True, "ts": ms},
            {"type": "load", "tab": 7, "frame": 0, "url": URL, "initial": True, "ts": ms}]


def _live(ms: float) -> list[dict]:
    return [{"type": "navigate", "tab": 7, "frame": 0, "url": URL, "transition": "typed", "ts": ms},
            {"type": "load", "tab": 7, "frame": 0, "url": URL, "ts": ms + 100},
            {"type": "click", "tab": 7, "x": 3, "y": 4, "ts": ms + 900}]


def _drive(tmp_path, batches: list[list[dict]]) -> tuple[list[dict], ActionChannel]:
    """Send `batches` (in this order, each acked) over the real socket, as the worker does."""
    async def run() -> ActionChannel:
        clock = RunClock()
        with JsonlWriter(tmp_path / "actions.jsonl", clock) as writer:
            chan = ActionChannel(writer, clock, token="tok")
            port = await chan.start()
            async with websockets.connect(f"ws://127.0.0.1:{port}/") as ws:
                await ws.send(json.dumps({"type": "hello", "token": "tok", "client": "w"}))
                assert json.loads(await ws.recv()) == {"type": "welcome"}
                for n, events in enumerate(batches, 1):
                    events = [{**e, "ts": clock.t0 * 1000 + e["ts"]} for e in events]
                    await ws.send(json.dumps({"type": "events", "token": "tok", "client": "w", "batch": n,
                                              "events": events}))
                    assert json.loads(await ws.recv()) == {"type": "ack", "batch": n}
            await chan.stop()
        return chan

    chan = asyncio.run(run())
    recs, bad = read_jsonl(tmp_path / "actions.jsonl")
    assert not bad
    return recs, chan


def _check(recs: list[dict]) -> None:
    assert [(r["type"], r.get("initial", False)) for r in recs] == \
        [("navigate", False), ("load", False), ("tab_open", True), ("click", False)]
    assert [r["seq"] for r in recs] == [1, 2, 3, 4]
    assert [r["t"] for r in recs] == sorted(r["t"] for r in recs)


def test_snapshot_before_the_live_navigation_is_dropped(tmp_path):
    """The snapshot saw the committed start page (t=0.5) before the worker dispatched its commit (t=0.2)."""
    recs, chan = _drive(tmp_path, [_snapshot(500), _live(200)])
    _check(recs)
    assert chan.stats["snapshot_duplicates"] == 2


def test_snapshot_after_the_live_navigation_is_dropped(tmp_path):
    """The live commit was recorded first: the snapshot's navigate/load are the same state, dropped on arrival."""
    recs, chan = _drive(tmp_path, [_live(200), _snapshot(500)])
    assert [(r["type"], r.get("initial", False)) for r in recs] == \
        [("navigate", False), ("load", False), ("click", False), ("tab_open", True)]
    assert chan.stats["snapshot_duplicates"] == 2


def test_snapshot_alone_is_kept_in_time_order(tmp_path):
    """No live event (the page loaded before the worker existed): the snapshot is the record, written in `t` order
    with what arrives during its window."""
    early = [{"type": "click", "tab": 7, "x": 1, "y": 1, "ts": 100}]
    late = [{"type": "click", "tab": 7, "x": 2, "y": 2, "ts": 900}]
    recs, chan = _drive(tmp_path, [early, _snapshot(500), late])
    assert [(r["type"], r.get("x")) for r in recs] == \
        [("click", 1), ("tab_open", None), ("navigate", None), ("load", None), ("click", 2)]
    assert all(r.get("initial") for r in recs[1:4]) and [r["seq"] for r in recs] == [1, 2, 3, 4, 5]
    assert chan.stats["snapshot_duplicates"] == 0
