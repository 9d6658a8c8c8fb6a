"""Stopping `clawrec run` from outside: SIGTERM/SIGHUP/SIGINT through the real CLI and Chromium (every layer is
finalized, one `clawrec:` line, the run folder is the last stdout line, exit 128+signal), Ctrl-C while the recorder
starts (manifest says `interrupted`, no task left unretrieved), and a browser that leaves while the action channel
acknowledges a batch (nothing printed, nothing lost)."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from websockets.client import ClientProtocol
from websockets.uri import parse_uri

from recorder.channel import ActionChannel
from recorder.records import JsonlWriter, RunClock, read_jsonl


# --- the action channel: a client that is gone before its ack is sent ------------------------------------------

def _frames_then_gone(port: int, token: str) -> None:
    """Handshake, then hello + one events batch + a close frame in ONE write, then the socket closes: the server
    reads both messages after the connection is already closing, so each reply it sends finds it closed."""
    proto = ClientProtocol(parse_uri(f"ws://127.0.0.1:{port}/"))
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        proto.send_request(proto.connect())
        sock.sendall(b"".join(proto.data_to_send()))
        while proto.handshake_exc is None and not proto.events_received() and proto.state.name == "CONNECTING":
            proto.receive_data(sock.recv(65536))
        assert proto.state.name == "OPEN", proto.handshake_exc
        proto.send_text(json.dumps({"type": "hello", "client": "c1", "token": token}).encode())
        proto.send_text(json.dumps({"type": "events", "client": "c1", "batch": 1, "token": token,
                                    "events": [{"type": "click", "x": 1, "y": 2}]}).encode())
        proto.send_close()
        sock.sendall(b"".join(proto.data_to_send()))


def test_channel_ack_to_a_closed_connection_prints_nothing_and_keeps_the_batch(tmp_path: Path, caplog):
    caplog.set_level(logging.DEBUG)

    async def main() -> list[dict]:
        clock = RunClock()
        seen: list[dict] = []
        with JsonlWriter(tmp_path / "actions.jsonl", clock) as writer:
            chan = ActionChannel(writer, clock, on_action=seen.append, token="tok-456")
            port = await chan.start()
            await asyncio.to_thread(_frames_then_gone, port, chan.token)
            await asyncio.wait_for(chan.connected.wait(), 30)
            deadline = asyncio.get_running_loop().time() + 30
            while not seen and asyncio.get_running_loop().time() < deadline:
                await asyncio.sleep(0.02)
            assert seen, chan.stats
            assert await chan.seq_of(seen[0], timeout=30) == 1
            await chan.stop()  # waits for the connection handler to end
        return seen

    asyncio.run(main())
    records, bad = read_jsonl(tmp_path / "actions.jsonl")
    assert not bad and [(r["type"], r["x"], r["y"]) for r in records] == [("click", 1, 2)]
    failed = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert not failed, [(r.name, r.getMessage(), r.exc_text) for r in failed]


# --- Ctrl-C while the recorder starts ---------------------------------------------------------------------------

def test_start_cancelled_while_waiting_for_the_browser_says_interrupted_and_leaves_no_task(tmp_path: Path):
    """Cancelled (Ctrl-C) while start() waits for CDP: the manifest's reason is `interrupted` (not an empty
    "recorder start failed: "), the browser is gone, and asyncio reports no unretrieved exception."""
    from recorder.session import Recording

    reported: list[dict] = []

    async def main() -> Recording:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(lambda _loop, ctx: reported.append(ctx) if _loop is loop else None)
        rec = Recording(tmp_path / "run", agent="script", headless=True, video=False, handle_signals=False)
        task = asyncio.create_task(rec.start())
        deadline = asyncio.get_running_loop().time() + 60
        while rec.screens is None:  # set right before start() waits for the browser and the screenshot connection
            assert not task.done() and asyncio.get_running_loop().time() < deadline, task
            await asyncio.sleep(0)
        assert not task.done()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        del task
        gc.collect()
        await asyncio.sleep(0.05)  # the loop runs the callbacks garbage collection scheduled
        return rec

    gc.collect()  # earlier tests' garbage first (outside any loop): it is not this test's business
    rec = asyncio.run(main())
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert (manifest["status"], manifest["stop_reason"]) == ("crashed", "interrupted"), manifest["stop_reason"]
    assert rec.browser is not None and rec.browser.process.poll() is not None
    assert not reported, [str(ctx.get("message")) + " " + repr(ctx.get("exception") or ctx.get("future"))
                          for ctx in reported]
