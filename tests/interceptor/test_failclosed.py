"""Fail closed and the standalone command, against real Chromium and the channel server's log.

- `clawrec intercept` blocks, continues the rest, writes a HAR on SIGTERM;
- SIGKILL of the interceptor process kills the browser (watchdog), also while a page keeps submitting: over many
  runs not one terminal request reaches the server (fault injection);
- a dropped CDP connection inside the process kills the browser."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from interceptor.cdp import Connection
from interceptor.core import Interceptor
from recorder.browser import launch_browser
from rundir.records import HAR, HTTP, INTERCEPTIONS, read_jsonl
from tests.interceptor.harness import Harness, channel_rules, make_spec, wait_until

SPEC = """version: 1
id: {id}
category: daily
instruction: Submit the order.
start_url: {base}/ch/loop
intercept:
  - url: "{base}/submit/**"
    method: POST
    fields: [order]
    equals: {{confirm: "yes"}}
"""


@pytest.fixture(scope="module")
def h():
    harness = Harness().start(playwright=False)
    harness.browser.close()  # each test launches its own browser (they get killed)
    yield harness
    harness.stop()


def _spec_file(tmp_path: Path, base: str) -> Path:
    path = tmp_path / "t-loop.yaml"
    path.write_text(SPEC.format(id="t-loop", base=base))
    return path


def _start_intercept(spec: Path, http_url: str, out: Path) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "clawrec.cli", "intercept", str(spec), "--browser", http_url,
                             "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()  # the ready line comes after auto-attach is on
    assert "intercepting" in line, line + proc.stderr.read()
    return proc


async def _open(ws_url: str, url: str) -> None:
    """A new tab navigated to `url` the way agents do it (about:blank first, then Page.navigate)."""
    conn = await Connection.open(ws_url)
    try:
        target = await conn.root.send("Target.createTarget", {"url": "about:blank"})
        attached = await conn.root.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})
        await conn.session(attached["sessionId"]).send("Page.navigate", {"url": url})
    finally:
        await conn.close()


def _gone(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
        if not os.path.exists(f"/proc/{pid}"):
            return True
        time.sleep(0.02)
    return False


def _terminal(h: Harness, since: int) -> list:
    return [e for e in h.server.log[since:] if e["path"] == "/submit/loop" and b'"confirm":"yes"' in e["body"]]


def _drafts(h: Harness, since: int) -> int:
    return sum(1 for e in h.server.log[since:] if e["path"] == "/submit/loop" and b'"confirm":"no"' in e["body"])


def test_intercept_command_blocks_then_writes_har(h, tmp_path):
    browser = launch_browser(headless=True)
    try:
        since = len(h.server.log)
        proc = _start_intercept(_spec_file(tmp_path, h.server.base), browser.http_url, tmp_path / "out")
        h.run(_open(browser.ws_url, f"{h.server.base}/ch/loop"))
        assert h.run(wait_until(lambda: _drafts(h, since) >= 20, 30))
        catches_path = tmp_path / "out" / INTERCEPTIONS
        assert h.run(wait_until(lambda: len(read_jsonl(catches_path)[0]) >= 5, 30))
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
        summary = json.loads(out.strip().splitlines()[-1])
        assert summary["caught"] >= 5
        assert _gone(browser.pid), "a stop must close the browser (it would be unprotected)"
    finally:
        browser.close()
    assert _terminal(h, since) == []
    catches, bad = read_jsonl(catches_path)
    assert not bad and all(c["body"]["confirm"] == "yes" and c["action"] == "blocked" for c in catches)
    from haralyzer import HarParser
    har = HarParser(json.loads((tmp_path / "out" / HAR).read_text()))
    entries = har.har_data["entries"]
    assert any(e["request"]["url"].endswith("/submit/loop") and e["response"]["status"] == 200 for e in entries)
    assert any(e.get("_intercepted") == "blocked" for e in entries)
    http, bad = read_jsonl(tmp_path / "out" / HTTP)
    assert not bad and any(r.get("url", "").endswith("/ch/loop") for r in http)


def test_bad_browser_url_is_one_line_exit_2(tmp_path, h):
    r = subprocess.run([sys.executable, "-m", "clawrec.cli", "intercept", str(_spec_file(tmp_path, h.server.base)),
                        "--browser", "127.0.0.1:1", "--out", str(tmp_path / "o")], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and r.stderr.startswith("clawrec: --browser")
    r = subprocess.run([sys.executable, "-m", "clawrec.cli", "intercept", str(tmp_path / "t-loop.yaml"),
                        "--browser", "http://127.0.0.1:1", "--out", str(tmp_path / "o")], capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "cannot attach to the browser" in r.stderr
    (tmp_path / "bad.yaml").write_text("version: 1\nid: bad\n")
    r = subprocess.run([sys.executable, "-m", "clawrec.cli", "intercept", str(tmp_path / "bad.yaml"),
                        "--browser", "http://127.0.0.1:1", "--out", str(tmp_path / "o")], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.startswith("clawrec: ") and "bad.yaml" in r.stderr, r.stderr


def test_sigkilled_interceptor_kills_the_browser_and_nothing_leaks(h, tmp_path):
    """Fault injection: >= 10 runs, each kills the interceptor mid-run while the page submits every 10 ms."""
    spec = _spec_file(tmp_path, h.server.base)
    runs = 10
    for i in range(runs):
        since = len(h.server.log)
        browser = launch_browser(headless=True)
        try:
            out = tmp_path / f"run{i}"
            proc = _start_intercept(spec, browser.http_url, out)
            h.run(_open(browser.ws_url, f"{h.server.base}/ch/loop"))
            assert h.run(wait_until(lambda: _drafts(h, since) >= 3 + i % 4, 30)), "the page never submitted"
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
            assert _gone(browser.pid), f"run {i}: the browser outlived the killed interceptor"
        finally:
            browser.close()
        assert _terminal(h, since) == [], f"run {i}: a terminal request reached the server"
        assert read_jsonl(out / INTERCEPTIONS)[0], f"run {i}: nothing caught before the kill"


def test_connection_drop_kills_browser_in_process(h, tmp_path):
    browser = launch_browser(headless=True)
    killed: list[str] = []

    async def scenario() -> Interceptor:
        icpt = Interceptor(make_spec(channel_rules(h.server)), tmp_path, kill_browser=lambda: (killed.append("x"),
                                                                                               browser.kill()))
        await icpt.attach(browser.http_url)
        await icpt.conn._ws.close()  # the browser side "goes away" without close()
        assert await wait_until(lambda: bool(killed), 10)
        await icpt.close()
        return icpt

    try:
        icpt = h.run(scenario())
        assert killed and icpt.failure and "lost the browser" in icpt.failure
        assert _gone(browser.pid)
    finally:
        browser.close()


def test_preloading_state_is_known(h, tmp_path):
    """Speculation-rules preloads bypass Fetch: our launcher turns them off, and a browser that preloads is seen."""
    prefs = tmp_path / "profile" / "Default" / "Preferences"
    prefs.parent.mkdir(parents=True)
    prefs.write_text(json.dumps({"net": {"network_prediction_options": 0}}))
    states = {}
    for name, kwargs in (("ours", {}), ("preloading", {"user_data_dir": tmp_path / "profile"})):
        browser = launch_browser(headless=True, **kwargs)

        async def scenario() -> bool | None:
            icpt = Interceptor(make_spec(channel_rules(h.server)), tmp_path / name)
            await icpt.attach(browser.ws_url)
            await _open(browser.ws_url, f"{h.server.base}/ch/fetch")
            await wait_until(lambda: icpt.preloading_enabled is not None, 20)
            await icpt.close()
            return icpt.preloading_enabled

        try:
            states[name] = h.run(scenario())
        finally:
            browser.close()
    assert states == {"ours": False, "preloading": True}
