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
from typing import Callable

import pytest
from websockets.client import ClientProtocol
from websockets.uri import parse_uri

from recorder.channel import ActionChannel
from rundir.records import JsonlWriter, RunClock, read_jsonl
from tests.pipeline.helpers import REPO
from tests.pipeline.tinysite import TinySite, write_spec

LAYERS = ("http.jsonl", "http.har", "actions.jsonl", "interceptions.jsonl", "agent.jsonl", "task.json",
          "screenshots/screenshots.jsonl")


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


# --- `clawrec run` stopped by a signal --------------------------------------------------------------------------

def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Chromium, the agent, ...), from /proc."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _run_and_signal(tmp_path: Path, site: TinySite, ready: Callable[[Path], bool], *sigs: int,
                    ignore: tuple[int, ...] = ()) -> tuple[subprocess.Popen, str, str, list[int], int]:
    """`clawrec run` with an agent that waits, started with `ignore` ignored (as under nohup); once
    `ready(run_dir)`, send `sigs` in turn; (process, stdout, stderr, its children and its mask of ignored
    signals (/proc SigIgn) just before)."""
    run_dir = tmp_path / "out"
    spec = write_spec(tmp_path, site)

    def preexec() -> None:  # default handlers even if this test runs in a shell that ignores some (nohup, &)
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN if sig in ignore else signal.SIG_DFL)

    proc = subprocess.Popen(
        [sys.executable, "-m", "clawrec.cli", "run", str(spec), "--agent", "command", "--agent-cmd", "sleep 60",
         "--headless", "--no-judge", "--run-dir", str(run_dir)], cwd=REPO, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, preexec_fn=preexec,
        env={k: v for k, v in os.environ.items() if not k.startswith(("CLAWREC_SITES", "ANTHROPIC_"))})
    try:
        deadline = time.monotonic() + 60
        while not ready(run_dir):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.02)
        children = _children(proc.pid)
        status = Path(f"/proc/{proc.pid}/status").read_text()
        ignored = int(next(x for x in status.splitlines() if x.startswith("SigIgn:")).split()[1], 16)
        for sig in sigs:
            proc.send_signal(sig)
        out, err = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc, out, err, children, ignored


def _start_page_recorded(run_dir: Path) -> bool:
    actions = run_dir / "actions.jsonl"
    return actions.exists() and bool(actions.read_text().strip())


@pytest.mark.parametrize("sig,code,line,reason", [
    (signal.SIGTERM, 143, "clawrec: terminated (SIGTERM)", "terminated (SIGTERM)"),
    (signal.SIGHUP, 129, "clawrec: terminated (SIGHUP)", "terminated (SIGHUP)"),
    (signal.SIGINT, 130, "clawrec: interrupted", "interrupted"),
], ids=["SIGTERM", "SIGHUP", "SIGINT"])
def test_signal_during_run_finalizes_every_layer(tmp_path: Path, sig: int, code: int, line: str, reason: str):
    """A signal while the agent works (the start page is recorded): every layer is finalized (http.har written),
    nothing clawrec started outlives it, the manifest names the signal, one `clawrec:` line for it, exit
    128+signal, and the run folder is still the last line on stdout."""
    run_dir = tmp_path / "out"
    with TinySite() as site:
        proc, out, err, children, _ = _run_and_signal(tmp_path, site, _start_page_recorded, sig)
    assert children  # at least Chromium
    assert proc.returncode == code, (proc.returncode, err)
    assert "Traceback" not in err, err
    said = [x for x in err.splitlines() if x.startswith("clawrec:") and "agent started" not in x]
    assert said == [line], err
    assert out.strip().splitlines()[-1] == str(run_dir.resolve()), out
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert (manifest["status"], manifest["stop_reason"]) == ("crashed", reason)
    for name in LAYERS:
        assert (run_dir / name).is_file(), name
    har = json.loads((run_dir / "http.har").read_text())
    assert any(e["request"]["url"] == site.url for e in har["log"]["entries"]), har["log"]["entries"]
    assert [pid for pid in children if _running(pid)] == []


def test_sigterm_while_the_recorder_starts_names_the_signal(tmp_path: Path):
    """SIGTERM as soon as the run folder has its first manifest (browser and channel still starting): the
    manifest names the signal (not an empty "recorder start failed: "), one line, exit 143, the folder printed."""
    run_dir = tmp_path / "out"
    with TinySite() as site:
        proc, out, err, _, _ = _run_and_signal(tmp_path, site, lambda run: (run / "manifest.json").exists(),
                                            signal.SIGTERM)
    assert proc.returncode == 143, (proc.returncode, err)
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "clawrec: terminated (SIGTERM)", err
    assert out.strip().splitlines()[-1] == str(run_dir.resolve()), out
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert (manifest["status"], manifest["stop_reason"]) == ("crashed", "terminated (SIGTERM)")


def test_sighup_ignored_at_start_stays_ignored(tmp_path: Path):
    """Under nohup (SIGHUP ignored) clawrec keeps SIGHUP ignored while it runs (the kernel drops a hang-up), and
    SIGTERM still stops the run."""
    with TinySite() as site:
        proc, _out, err, _, ignored = _run_and_signal(tmp_path, site, _start_page_recorded, signal.SIGHUP, signal.SIGTERM,
                                             ignore=(signal.SIGHUP,))
    assert ignored & (1 << (signal.SIGHUP - 1)) and not ignored & (1 << (signal.SIGTERM - 1)), hex(ignored)
    assert proc.returncode == 143, (proc.returncode, err)
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())["stop_reason"] == "terminated (SIGTERM)"
