"""kill -9 of `clawrec run` at the final click, on a real application (issue 34): oscar's guest checkout by the
scripted person, which says its next click is "Place order" and then waits; clawrec is SIGKILLed there and the
script clicks. Fail-closed means the order never reaches the shop: read from oscar's own database (no order, while
the basket line and the checkout's address, the earlier writes, are there) and its own access log (no Place-order
POST); the run's Chromium and the app's server die with clawrec (no orphan holds the instance)."""

from __future__ import annotations

import json
import signal
import sqlite3
import sys
import time
from pathlib import Path

import psutil

from clawrec.apps import corpus
from recorder.browser import find_chromium
from tests.pipeline.helpers import jsonl, spawn_cli

REPO = Path(__file__).resolve().parents[2]
SPEC = REPO / "specs" / "apps" / "oscar" / "oscar-guest-checkout.yaml"
AGENT = Path(__file__).resolve().parent / "agent_scripts" / "oscar_checkout.py"


def _wait(cond, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.05)


def _said_final(run: Path) -> bool:
    try:
        return any(r.get("final") for r in jsonl(run, "agent.jsonl"))
    except (OSError, ValueError):
        return False


def _gone(pids: list[int]) -> bool:
    return not [p for p in pids if psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE]


def test_kill_9_at_the_final_click_places_no_order(tmp_path):
    find_chromium()  # raises: a loud failure, not a skip
    app = corpus.get("oscar")
    assert app.installed(), "oscar is not installed in .tools/apps: run `make apps`"
    run, go = tmp_path / "run", tmp_path / "click-now"
    cmd = f"{sys.executable} {AGENT} --hold-final {go}"
    proc = spawn_cli([str(SPEC), "--agent", "command", "--agent-cmd", cmd, "--headless", "--no-judge",
                      "--run-dir", str(run)], start_new_session=True)
    try:
        _wait(lambda: _said_final(run) or proc.poll() is not None, 180, "the script's final click")
        assert proc.poll() is None, proc.communicate()
        tree = psutil.Process(proc.pid).children(recursive=True)
        browsers = [p.pid for p in tree if "chromium" in p.name().lower()]
        slot = json.loads((run / "manifest.json").read_text())["environment"]["slot"]
        state = json.loads((app.root / "instances" / slot / "state.json").read_text())
        assert browsers, [p.name() for p in tree]
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
    go.touch()  # the script clicks Place order now, with clawrec dead
    _wait(lambda: _gone(browsers), 15, "the run's Chromium to die with clawrec")
    _wait(lambda: _gone([state["pid"]]), 15, "the app's server to die with clawrec")
    time.sleep(1)  # whatever the click could still send has had its chance

    data = app.root / "instances" / slot / "data"
    db = sqlite3.connect(f"file:{data / 'db.sqlite3'}?mode=ro", uri=True)
    try:
        assert db.execute("SELECT COUNT(*) FROM order_order").fetchone()[0] == 0  # no order: fail-closed
        assert db.execute("SELECT quantity FROM basket_line").fetchall() == [(2,)]  # the earlier writes reached it
        address = db.execute("SELECT json_extract(session_data, '$.checkout_data.shipping.new_address_fields"
                             ".postcode') FROM django_session WHERE session_data LIKE '%checkout_data%'").fetchall()
    finally:
        db.close()
    log = (app.root / "instances" / slot / "server.log").read_text()
    assert '"POST /basket/ HTTP/1.1" 200' in log and "POST /checkout/shipping-address/" in log
    assert "POST /checkout/preview/" not in log  # the shop never saw "Place order"
    assert address == [("SW1A 1AA",)]  # the address step reached the checkout's session
