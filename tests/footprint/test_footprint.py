"""Can a page tell that clawrec is recording? The detector page (page/: FingerprintJS BotD plus the public CDP checks,
in a page, a cross-site iframe and their dedicated workers) is loaded in a bare Chromium (same binary, headed, no
debugging port: a person's browser) and under clawrec; every check must read as in the bare browser.

Under clawrec: `clawrec run` headed and headless (recorder, extension, interceptor with an HTTP and a WebSocket rule,
so the WebSocket guard is in every frame and worker; the headless run with --archive), hold mode (the interceptor
with a Hold, headless; the test allows what is held, as the person would), and archive replay (`--site-from` the
headless run: the reports are read from the run's http.jsonl, since nothing reaches the server). The hold run is also told the DevTools endpoint: the page's WebSocket
to it must be refused."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from recorder.browser import BASE_FLAGS, find_chromium, launch_browser
from recorder.display import start_display
from rundir.domfile import read_dom
from rundir.records import DOM
from tests.footprint.server import serve

REPO = Path(__file__).resolve().parents[2]
WHERE = {"page", "iframe", "page-worker", "iframe-worker"}
RAW = {"where", "screen", "window", "devtools", "botd"}  # sizes differ by a pixel headed/headless; checked apart

SPEC = """version: 1
id: footprint
instruction: Wait.
start_url: "{base}/detect.html?frame={other}"
limits: {{time_s: 120}}
intercept:
  - url: "{base}/never"
    method: POST
  - url: "ws://127.0.0.1:{port}/never"
"""


@pytest.fixture(scope="module")
def pages():
    with serve() as (port, reports):
        yield port, reports


@pytest.fixture(scope="module")
def display():
    d = start_display((1280, 800))
    yield d
    d.stop()


def _url(port: str, **extra: str) -> str:
    q = "".join(f"&{k}={v}" for k, v in extra.items())
    return f"http://127.0.0.1:{port}/detect.html?frame=http://localhost:{port}{q}"


def bare_reports(port: str, reports, display) -> dict[str, dict[str, Any]]:
    """The reference: the same Chromium, headed, no debugging port, none of clawrec's flags."""
    reports.clear()
    profile = tempfile.mkdtemp(prefix="footprint-bare-")
    flags = [f for f in BASE_FLAGS if f.startswith("--") and "remote-" not in f and "blink-features" not in f]
    flags += [f"--user-data-dir={profile}", "--window-size=1280,800", "--window-position=0,0"]
    flags += ["--no-sandbox"] if os.geteuid() == 0 else []
    proc = subprocess.Popen([find_chromium(), *flags, _url(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=dict(os.environ, DISPLAY=display.name))
    try:
        got = reports.wait(WHERE, 60)
    finally:
        proc.kill()
        proc.wait()
        subprocess.run(["rm", "-rf", profile])
    reports.clear()
    return got


@pytest.fixture(scope="module")
def bare(pages, display) -> dict[str, dict[str, Any]]:
    return bare_reports(*pages, display)


def _flat(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        if prefix == "" and k in RAW:
            continue
        out.update(_flat(v, f"{prefix}{k}.") if isinstance(v, dict) else {f"{prefix}{k}": v})
    return out


def findings(bare: dict[str, dict[str, Any]], got: dict[str, dict[str, Any]], wheres: set[str] = WHERE) -> list[str]:
    """Every check whose value differs from the bare browser's, per context; BotD must say what it said bare."""
    out = []
    for where in sorted(wheres):
        a, b = _flat(bare[where]), _flat(got[where])
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                if isinstance(a.get(key), list) and isinstance(b.get(key), list):
                    out.append(f"{where} {key}: added {sorted(set(b[key]) - set(a[key]))}, "
                               f"missing {sorted(set(a[key]) - set(b[key]))}")
                else:
                    out.append(f"{where} {key}: bare {a.get(key)!r:.120}, clawrec {b.get(key)!r:.120}")
        if where in ("page", "iframe"):
            if got[where]["botd"] != bare[where]["botd"]:
                out.append(f"{where} BotD: bare {bare[where]['botd']}, clawrec {got[where]['botd']}")
            if got[where]["screen_ge_window"] is not True:
                out.append(f"{where} screen {got[where]['screen']} smaller than the window {got[where]['window']}")
    return out


class SentReports:
    """The detector's reports as the run's HTTP layer logged them (archive replay: they never reach the server)."""

    def __init__(self, http_jsonl: Path) -> None:
        self.path = http_jsonl

    def wait(self, wheres: set[str], timeout: float = 60) -> dict[str, dict[str, Any]]:
        deadline = time.monotonic() + timeout
        got: dict[str, dict[str, Any]] = {}
        while time.monotonic() < deadline:
            lines = self.path.read_text().splitlines() if self.path.exists() else []
            for line in lines:
                r = json.loads(line)
                if r.get("method") == "POST" and str(r.get("url", "")).endswith("/result"):
                    body = (r.get("body") or {}).get("value")  # the HTTP layer's decoded body {kind, value}
                    if isinstance(body, dict) and body.get("where"):
                        got[body["where"]] = body
            if wheres <= set(got):
                return got
            time.sleep(0.1)
        raise AssertionError(f"reports missing from {self.path}: {sorted(wheres - set(got))}")


def clawrec_run(port: str, reports, tmp_path: Path, headless: bool, agent: str | None = None,
                wheres: set[str] = WHERE, extra: tuple[str, ...] = ()) -> dict[str, dict[str, Any]]:
    """`clawrec run` on the detector page with a waiting agent (or `agent`, a command line ending in the file to
    wait for, given as {done}) and `extra` flags; the reports of `wheres` (`reports` None: from RUN/http.jsonl)."""
    spec = tmp_path / "footprint.yaml"
    base, other = f"http://127.0.0.1:{port}", f"http://localhost:{port}"
    spec.write_text(SPEC.format(base=base, other=other, port=port))
    done = tmp_path / "reported"
    agent = (agent or f"{sys.executable} {Path(__file__).parent / 'wait_agent.py'} {{done}}").format(done=done)
    args = [sys.executable, "-m", "clawrec.cli", "run", str(spec), "--agent", "command", "--agent-cmd", agent,
            "--no-judge", "--run-dir", str(tmp_path / "run"), "--no-video", *extra] + (["--headless"] if headless else [])
    proc = subprocess.Popen(args, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        got = (reports or SentReports(tmp_path / "run" / "http.jsonl")).wait(wheres, 90)
    except AssertionError:
        proc.kill()
        out, err = proc.communicate(timeout=30)
        raise AssertionError(err[-3000:])
    done.touch()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err[-3000:]
    return got


async def _hold_run(port: str, reports, tmp_path: Path) -> tuple[dict[str, dict[str, Any]], str]:
    """The interceptor in hold mode (every state-changing request waits for a person; the test allows each)."""
    from interceptor.core import Interceptor
    from interceptor.hold import Hold
    from rundir.records import RunClock
    from clawrec.startpage import open_start_page
    from taskspec.spec_runs import load_spec_text

    spec_path = tmp_path / "footprint.yaml"
    text = SPEC.format(base=f"http://127.0.0.1:{port}", other=f"http://localhost:{port}", port=port)
    spec = load_spec_text(text, spec_path)
    browser = launch_browser(headless=True)
    run_dir = tmp_path / "run"
    clock = RunClock()
    hold = Hold(run_dir, clock)
    loop = asyncio.get_running_loop()
    hold.listeners.append(lambda held: loop.call_soon(hold.decide, held.id, "allow", "test"))
    icpt = Interceptor(spec, run_dir, clock, hold=hold, kill_browser=browser.kill)
    try:
        await icpt.attach(browser.ws_url)
        await open_start_page(browser.ws_url, _url(port, devtools=browser.ws_url))
        got = await loop.run_in_executor(None, reports.wait, WHERE, 90)
        assert icpt.failure is None
        return got, (run_dir / "holds.jsonl").read_text()
    finally:
        await icpt.close(close_browser=True)
        browser.close()


@pytest.fixture(scope="module")
def archived() -> dict[str, Path]:
    """The headless run's directory (it also writes archive.warc.gz), for the replay run."""
    return {}


@pytest.mark.parametrize("mode", ["headed", "headless", "hold", "replay"])
def test_clawrec_adds_nothing_a_page_can_detect(mode, pages, bare, archived, tmp_path):
    port, reports = pages
    reports.clear()
    assert bare["page"]["botd"] == {"bot": False, "kind": None}, bare["page"]["botd"]  # the detector works
    assert bare["page"]["webdriver"] is False and bare["page"]["leaks"]["prepare_stack_trace"] is False
    if mode == "hold":
        got, holds = asyncio.run(_hold_run(port, reports, tmp_path))
        assert '"decision":"allow"' in holds  # the reports were held and allowed: hold mode was on
        assert got["page"]["devtools"] == "refused"  # the page could not open the DevTools WebSocket
    elif mode == "replay":  # the headless run's archive, served with --site-from: nothing reaches the server
        # Every context: the archive holds the cross-site iframe's document, the workers' scripts and the POSTs.
        assert "headless" in archived, "the headless run (which archives the page) did not run first"
        got = clawrec_run(port, None, tmp_path, headless=True, extra=("--site-from", str(archived["headless"])))
        assert reports.items == []
    else:
        extra = ("--archive",) if mode == "headless" else ()
        got = clawrec_run(port, reports, tmp_path, headless=mode == "headless", extra=extra)
        if mode == "headless":
            assert (tmp_path / "run" / "archive.warc.gz").stat().st_size > 10_000
            archived["headless"] = tmp_path / "run"
        # The DOM layer (on by default) captured the detector page and its cross-site iframe's own target.
        captures, _bad = read_dom(tmp_path / "run" / DOM)
        assert any({f["type"] for f in c["frames"] if "snapshot" in f} == {"page", "iframe"} for c in captures)
    assert findings(bare, got) == []
