"""`inspect eval clawrec/demo` end to end: Inspect's eval() through the package's entry point, Inspect's offline
model (mockllm) playing the demo scripts, real Chromium on the local sites, clawrec's judge as the scorer.

One eval, three samples run concurrently (Inspect's max_samples): travel with the right calls (caught, payload
judge PASS), the social status with the wrong audience (FAIL naming the field), the shop order given up before
ordering (FAIL, diagnosis never_submitted). The log Inspect wrote holds each run directory; each run directory holds
what a `clawrec run` holds; `inspect view bundle` of the log renders in a real Chromium.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log
from playwright.sync_api import expect, sync_playwright

from recorder.browser import launch_browser

from tests.support.inspect_model import scripted_model
from tests.support.model_script import History, ToolCall, Turn
from tests.support.scripts import shop, social, travel
from tests.support.scripts.plan import navigate, plan

IDS = "travel-flight-oneway,social-status-update,shop-trail-order"


def wrong_audience(call: ToolCall) -> ToolCall:
    if call.name == "select" and call.arguments.get("values") == ["friends"]:
        return ToolCall("select", {**call.arguments, "values": ["public"]}, call.id)
    return call


@pytest.fixture(scope="module")
def demo_eval(sites, tmp_path_factory):
    assert shop  # (the full shop script exists; this run gives up after the first page on purpose)
    tmp = tmp_path_factory.mktemp("inspect")
    errors: list[str] = []
    model = scripted_model({"On Skylark": (travel.script(), None),
                            "On Murmur, leave the comment": (social.script(), wrong_audience),
                            "On Northwind": (plan(navigate(), final="I could not finish the order."), None)},
                           errors)
    mp = pytest.MonkeyPatch()
    mp.setenv("CLAWREC_SITES", json.dumps(sites.urls))
    try:
        logs = inspect_eval("clawrec/demo", model=model, task_args={"ids": IDS, "runs_dir": str(tmp / "runs")},
                            log_dir=str(tmp / "logs"), max_samples=3, display="none", log_format="eval")
    finally:
        mp.undo()
    assert not errors, errors
    assert len(logs) == 1 and logs[0].status == "success", logs[0].error
    return tmp, logs[0]


def sample(log, sample_id: str):
    return next(s for s in log.samples if s.id == sample_id)


def score(s):
    return next(iter(s.scores.values()))


def test_right_calls_are_caught_and_pass(demo_eval):
    _, log = demo_eval
    s = sample(log, "travel-flight-oneway")
    sc = score(s)
    assert sc.value == "C", sc.explanation
    run = Path(sc.metadata["run_dir"])
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["status"] == "intercepted" and manifest["agent"] == "inspect"
    assert json.loads((run / "verdict.json").read_text())["verdict"] == "PASS"
    assert sc.metadata["diagnosis"] is None and sc.metadata["verification_wall"] is False
    assert '"flight_id": "SK344"' in sc.explanation  # the captured payload
    # every tool call recorded as any agent's: call and result with the model's call id
    log_lines = [json.loads(line) for line in (run / "agent.jsonl").read_text().splitlines()]
    calls = [r for r in log_lines if r["role"] == "tool_call"]
    results = [r for r in log_lines if r["role"] == "tool_result"]
    assert {"navigate", "snapshot", "click", "type", "select"} <= {c["tool"] for c in calls}
    assert [c["id"] for c in calls] == [r["id"] for r in results] and all(c["id"] for c in calls)
    inspect_ids = [c.id for m in s.messages if m.role == "assistant" for c in (m.tool_calls or [])]
    assert [c["id"] for c in calls] == inspect_ids[:len(calls)]
    assert (run / "actions.jsonl").stat().st_size > 0 and (run / "http.jsonl").stat().st_size > 0


def test_wrong_field_fails_naming_it(demo_eval):
    _, log = demo_eval
    sc = score(sample(log, "social-status-update"))
    assert sc.value == "I"
    assert "audience" in sc.explanation.splitlines()[1], sc.explanation
    assert sc.metadata["diagnosis"] == "wrong_value"
    assert json.loads((Path(sc.metadata["run_dir"]) / "manifest.json").read_text())["status"] == "intercepted"


def test_never_submitting_fails_never_submitted(demo_eval):
    _, log = demo_eval
    s = sample(log, "shop-trail-order")
    sc = score(s)
    assert sc.value == "I" and sc.metadata["diagnosis"] == "never_submitted", sc.explanation
    assert "no terminal request was caught" in sc.explanation
    run = Path(sc.metadata["run_dir"])
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["status"] == "ok" and not (run / "interceptions.jsonl").read_text().strip()
    assert json.loads((run / "diagnosis.json").read_text())["category"] == "never_submitted"


def test_the_log_on_disk_links_each_run(demo_eval):
    tmp, log = demo_eval
    on_disk = read_eval_log(log.location)
    assert on_disk.eval.task == "clawrec/demo" and len(on_disk.samples) == 3
    for s in on_disk.samples:
        run = Path(s.store["clawrec:run_dir"])
        assert run.is_dir() and run.is_relative_to(tmp / "runs")
        assert s.metadata["clawrec"]["run_dir"] == str(run) == score(s).metadata["run_dir"]
        assert (run / "manifest.json").is_file()


@pytest.fixture
def bundle_site(demo_eval):
    """`inspect view bundle` of the eval's log folder, served on loopback (the static viewer Inspect publishes)."""
    tmp, _ = demo_eval
    out = tmp / "bundle"
    proc = subprocess.run([sys.executable, "-m", "inspect_ai", "view", "bundle", "--log-dir", str(tmp / "logs"),
                           "--output-dir", str(out), "--overwrite"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (out / "index.html").is_file() and list((out / "logs").glob("*.eval"))
    handler = functools.partial(QuietHandler, directory=str(out))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    thread.join()


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the stdlib's name)
        pass


def test_the_view_bundle_renders_each_run_in_chromium(bundle_site, demo_eval, tmp_path):
    """The bundle opened in a real headless Chromium: the three samples with their scores; a sample's scoring tab
    shows the explanation and the run directory. CLAWREC_VIEWER_SHOTS=docs/viewer saves the docs' screenshots."""
    _, log = demo_eval
    shots = Path(os.environ.get("CLAWREC_VIEWER_SHOTS") or tmp_path)
    b = launch_browser(headless=True)
    try:
        with sync_playwright() as p:
            page = p.chromium.connect_over_cdp(b.http_url).contexts[0].new_page()
            page.set_viewport_size({"width": 1400, "height": 850})
            page.goto(bundle_site)
            for sample_id in IDS.split(","):
                expect(page.get_by_text(sample_id, exact=True)).to_be_visible(timeout=30_000)
            expect(page.get_by_text("clawrec/demo").first).to_be_visible()
            page.screenshot(path=str(shots / "inspect-view.png"))
            page.get_by_text("social-status-update", exact=True).click()
            page.get_by_text(re.compile(r"^scoring$", re.I)).first.click()  # the tab (its label is uppercased by CSS)
            run_dir = score(sample(log, "social-status-update")).metadata["run_dir"]
            expect(page.get_by_text(run_dir).first).to_be_visible(timeout=30_000)
            expect(page.get_by_text("wrong_value").first).to_be_visible()
            page.screenshot(path=str(shots / "inspect-sample.png"))
    finally:
        b.close()
    assert (shots / "inspect-view.png").stat().st_size > 10_000


def _children() -> set[int]:
    """Live processes whose parent is this test process (Chromium, the agent's driver, Xvfb, ffmpeg ...)."""
    me, out = os.getpid(), set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me and fields[0] != "Z":
            out.add(int(stat.parent.name))
    return out


def stalling(request, h: History) -> Turn:
    """Opens the start page, then waits forever (until Inspect's time limit cancels the sample)."""
    return navigate()(h) if h.step == 0 else Turn(tool_calls=[ToolCall("browser", {"action": "act", "kind": "wait",
                                                                                  "timeMs": 300})])


def test_inspects_time_limit_finalizes_the_run_and_leaves_no_process(sites, tmp_path, monkeypatch):
    """Inspect cancels the sample at its time limit: the clawrec run is finalized as a Ctrl-C'd `clawrec run` is
    (status crashed, reason interrupted, every layer closed), the sample still links and scores it, and no browser
    or agent process is left once eval() returns."""
    before = _children()
    errors: list[str] = []
    monkeypatch.setenv("CLAWREC_SITES", json.dumps(sites.urls))
    [log] = inspect_eval("clawrec/demo", model=scripted_model({"On Skylark": (stalling, None)}, errors),
                         task_args={"ids": "travel-flight-oneway", "runs_dir": str(tmp_path / "runs")},
                         log_dir=str(tmp_path / "logs"), time_limit=12, display="none")
    assert not errors and log.status == "success", (errors, log.error)
    s = log.samples[0]
    assert s.limit is not None and s.limit.type == "time"
    run = Path(s.store["clawrec:run_dir"])
    manifest = json.loads((run / "manifest.json").read_text())
    assert (manifest["status"], manifest["stop_reason"]) == ("crashed", "interrupted")
    assert (run / "http.har").is_file() and "agent" in manifest["layers"]  # finalized (the agent may not have
    # acted yet on a loaded machine: the browser's start counts in Inspect's time limit)
    assert s.metadata["clawrec"]["stop_reason"] == "interrupted" and score(s).metadata["run_dir"] == str(run)
    assert _children() <= before
