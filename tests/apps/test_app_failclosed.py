"""kill -9 of `clawrec run` at the final click, on a real application (issue 34): oscar's guest checkout by the
scripted person, which says its next click is "Place order" and then waits (--hold-final). Two moments:

- clawrec is SIGKILLed there, then the script may click: the watchdog ends the agent with the browser;
- clawrec is frozen (SIGSTOP) there, the script clicks, so the Place-order POST sits paused in Chromium's Fetch
  with no interceptor to answer it, and then clawrec is SIGKILLed: the request dies with the browser (Chromium
  continues paused requests of a client that goes away, so the browser must be dead first). Its control: frozen the
  same way and let go on, clawrec catches that very POST (it was on its way, not lost before the kill).

Fail-closed means the order never reaches the shop: read from oscar's own instance folder after clawrec is dead (no
order and no mail in its database while the basket line and the checkout's address, the earlier writes, are there;
its access log without the Place-order POST), the slot's lock taken by the test meanwhile so no other run resets it;
and no process of the run survives (Chromium, the agent, the app's launcher)."""

from __future__ import annotations

import fcntl
import json
import signal
import sys
from pathlib import Path
from typing import Any

import psutil
import pytest
import yaml

from clawrec.apps import corpus
from clawrec.apps.checks import run_checks
from recorder.agent_log import INBOX
from recorder.browser import find_chromium
from rundir.records import read_jsonl
from tests.pipeline.helpers import jsonl, manifest, spawn_cli
from tests.support.wait import wait_for

REPO = Path(__file__).resolve().parents[2]
SPEC = REPO / "specs" / "apps" / "oscar" / "oscar-guest-checkout.yaml"
AGENT = Path(__file__).resolve().parent / "agent_scripts" / "oscar_checkout.py"


def _said(run: Path, key: str) -> bool:
    """The script's own log (CLAWREC_AGENT_LOG, the inbox clawrec copies into agent.jsonl: read while it is frozen)
    has a record with `key` (`final`) or an action `key` (`clicked`)."""
    try:
        records, _ = read_jsonl(run / INBOX)
    except OSError:
        return False
    return any(r.get(key) or isinstance(r.get("content"), dict) and key in r["content"] for r in records)


def _alive(procs: list[psutil.Process]) -> list[str]:
    out = []
    for p in procs:  # is_running() compares the start time too: a reused PID is not ours
        try:
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                out.append(f"{p.pid} {p.name()}")
        except psutil.NoSuchProcess:
            pass
    return out


def _try_lock(fh: Any) -> bool:
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _run_to_the_final_click(tmp_path: Path, moment: str) -> tuple[Path, list[psutil.Process]]:
    """`clawrec run` of the checkout, killed at the final click (`moment`: "killed", or "frozen" first), or frozen
    there and let go on ("resumed": the control); the run directory and every process the run had started."""
    find_chromium()  # raises: a loud failure, not a skip
    assert corpus.get("oscar").installed(), "oscar is not installed in .tools/apps: run `make apps`"
    run, go = tmp_path / "run", tmp_path / "click-now"
    proc = spawn_cli([str(SPEC), "--agent", "command", "--agent-cmd", f"{sys.executable} {AGENT} --hold-final {go}",
                      "--headless", "--no-judge", "--run-dir", str(run)], start_new_session=True)
    tree: list[psutil.Process] = []
    resume = False
    try:
        wait_for(lambda: _said(run, "final") or proc.poll() is not None, "the script's final click", 180, 0.05)
        assert proc.poll() is None, proc.communicate()
        tree = psutil.Process(proc.pid).children(recursive=True)
        assert [p for p in tree if "chrom" in p.name().lower()], [p.name() for p in tree]
        if moment in ("frozen", "resumed"):
            proc.send_signal(signal.SIGSTOP)  # the interceptor can answer nothing from now on
            go.touch()
            wait_for(lambda: _said(run, "clicked"), "the script's Place-order click", 60, 0.05)
            tree += [p for p in psutil.Process(proc.pid).children(recursive=True) if p not in tree]
            resume = moment == "resumed"
    finally:
        proc.send_signal(signal.SIGCONT if resume else signal.SIGKILL)
        out, err = proc.communicate(timeout=180)
    assert proc.returncode == (0 if resume else -signal.SIGKILL), err
    go.touch()  # "killed": the script clicks now, if the watchdog has not ended it yet
    try:
        wait_for(lambda: not _alive(tree), "every process of the run to die with clawrec", 20)
    finally:
        for p in tree:  # the failure: ours to end, by PID
            if _alive([p]):
                p.kill()
    return run, tree


def _shop_after(run: Path, tree: list[psutil.Process]) -> tuple[dict[str, dict], str]:
    """The spec's checks read from the run's instance folder with clawrec dead, and the shop's access log."""
    app = corpus.get("oscar")
    env = manifest(run)["environment"]  # written at the start: the run's instance slot
    slot = app.root / "instances" / env["slot"]
    with (slot / "lock").open("a+") as lock:  # clawrec's claim died with it; ours keeps other runs off the slot
        wait_for(lambda: _try_lock(lock), f"the slot {slot} to be free", 15)
        state = json.loads((slot / "state.json").read_text())  # left behind: no cleanup ran
        assert state["url"] == env["url"] and state["pid"] in [p.pid for p in tree]  # the launcher: dead with it
        checks = run_checks(yaml.safe_load(SPEC.read_text())["environment"]["checks"], slot / "data", app.database,
                            app.mail, app.uploads)
        return {c["name"]: c for c in checks}, (slot / "server.log").read_text()


@pytest.mark.parametrize("moment", ["killed", "frozen"])
def test_kill_9_at_the_final_click_places_no_order(tmp_path, moment):
    run, tree = _run_to_the_final_click(tmp_path, moment)
    assert manifest(run)["status"] == "running"  # killed: nothing finalized it
    checks, log = _shop_after(run, tree)
    assert checks["no order placed"]["result"]["count"] == 0, checks  # fail-closed
    assert checks["no confirmation mail sent"]["result"]["count"] == 0, checks
    assert checks["basket line holds the quantity"]["result"]["records"] == [{"quantity": 2}], checks
    assert checks["shipping address in the checkout session"]["result"]["records"] == [
        {"postcode": "SW1A 1AA", "email": "sam@example.org"}], checks
    assert '"POST /basket/ HTTP/1.1" 200' in log and '"POST /checkout/shipping-address/ HTTP/1.1" 302' in log
    assert "POST /checkout/preview/" not in log  # the shop never saw "Place order"


def test_the_frozen_click_was_on_its_way(tmp_path):
    """The control of the "frozen" moment: clawrec let go on instead of killed catches the Place-order POST the
    script sent while it was frozen (the request was paused in Chromium, not lost before the kill)."""
    run, _ = _run_to_the_final_click(tmp_path, "resumed")
    assert manifest(run)["status"] == "intercepted"
    (catch,) = jsonl(run, "interceptions.jsonl")
    assert catch["url"].endswith("/checkout/preview/") and catch["body"]["action"] == "place_order", catch
    checks = {c["name"]: c for c in json.loads((run / "environment.json").read_text())["checks"]}
    assert checks["no order placed"]["result"]["count"] == 0, checks
