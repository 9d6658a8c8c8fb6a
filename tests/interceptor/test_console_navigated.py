"""Uncaught exceptions of documents the tab navigated away from reach console.jsonl (issue 23), from Chromium's own
log (interceptor/chromelog.py), real Chromium: a page throws at load, in a timer and in a promise, a cross-site iframe
throws, a worker throws, the page says "Uncaught …" itself, then navigates (script) to a second page that throws.
Each exception is there once, with the time it was thrown; Runtime is never enabled in any target (every command
the interceptor sends is watched)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from interceptor.cdp import Session
from interceptor.core import Interceptor
from recorder.browser import launch_browser
from rundir.records import CONSOLE, RunClock, read_jsonl
from taskspec.model import Rule
from tests.interceptor.harness import make_spec
from tests.support.loopback import LoopbackSite

FIRST = """<!doctype html><p>first</p><script>
console.log('Uncaught by nobody: the page says so itself');
new Worker('/worker.js');
const f = document.createElement('iframe');
f.src = 'http://localhost:' + location.port + '/frame'; document.body.append(f);
Promise.reject(new Error('rejected in first'));
setTimeout(() => { throw new Error('timer in first'); }, 10);
window.addEventListener('message', () => setTimeout(() => { location.href = '/second'; }, 300));
throw new Error('load in first');
</script>"""
FRAME = "<script>parent.postMessage('x', '*'); throw new TypeError('thrown in the iframe');</script>"
WORKER = "throw new RangeError('thrown in the worker');"
SECOND = "<!doctype html><title>second</title><script>throw new Error('load in second');</script>"


PAGES = {"/": (FIRST, "text/html"), "/frame": (FRAME, "text/html"), "/worker.js": (WORKER, "text/javascript"),
         "/second": (SECOND, "text/html")}


def _answer(method: str, path: str, body: bytes) -> tuple[str, bytes]:
    text, kind = PAGES.get(path, ("", "text/plain"))
    return kind, text.encode()


def test_exceptions_of_a_document_left_behind_are_recorded_without_runtime(tmp_path, monkeypatch):
    sent: list[tuple[str, str]] = []
    original = Session.send

    def watched(self: Session, method: str, params: dict | None = None) -> asyncio.Future:
        sent.append((self.target_type, method))
        return original(self, method, params)

    monkeypatch.setattr(Session, "send", watched)
    browser = launch_browser(headless=True, log_path=tmp_path / "chromium.log")
    site = LoopbackSite(_answer)
    port = site.url.rsplit(":", 1)[1].strip("/")

    async def scenario() -> float:
        clock = RunClock()
        spec = make_spec([Rule(index=0, url=f"http://127.0.0.1:{port}/never", methods=("POST",))])
        icpt = Interceptor(spec, tmp_path / "run", clock, kill_browser=browser.kill)
        assert icpt.console is not None
        icpt.console.browser_log = browser.log_path
        try:
            await icpt.attach(browser.ws_url)
            page = await icpt.conn.root.call("Target.createTarget", {"url": f"http://127.0.0.1:{port}/"})
            deadline = asyncio.get_running_loop().time() + 60
            while True:  # the tab reached the second page and it ran
                targets = (await icpt.conn.root.call("Target.getTargets"))["targetInfos"]
                url = next(t["url"] for t in targets if t["targetId"] == page["targetId"])
                if url.endswith("/second") and "load in second" in browser.log_path.read_text():
                    break
                assert asyncio.get_running_loop().time() < deadline, url
                await asyncio.sleep(0.1)
            end = clock.now()
        finally:
            await icpt.close()
        return end

    try:
        end = asyncio.run(scenario())
    finally:
        browser.close()
        site.close()
    records, bad = read_jsonl(tmp_path / "run" / CONSOLE)
    assert not bad
    thrown = [r for r in records if r["kind"] == "exception" and r.get("source") != "worker"]
    texts = sorted(r["text"] for r in thrown)
    assert texts == ["Uncaught (in promise) Error: rejected in first", "Uncaught Error: load in first",
                     "Uncaught Error: load in second", "Uncaught Error: timer in first",
                     "Uncaught RangeError: thrown in the worker", "Uncaught TypeError: thrown in the iframe"], records
    assert all(r["target"] == "frame" and r["via"] == "chromium log" and 0 < r["t"] <= end for r in thrown)
    by = {r["text"]: r for r in thrown}
    assert by["Uncaught Error: load in first"]["t"] < by["Uncaught Error: load in second"]["t"]
    assert by["Uncaught Error: load in first"]["url"].endswith(f"/") and by["Uncaught Error: load in first"][
        "line"] == 9
    # the worker's exception: the worker's own (its page's Log domain, source worker; its session has none), and
    # the page's report of the Worker's unhandled error event (Chromium's log holds both); the page's own
    # "Uncaught …" text is a console call only
    worker = [r for r in records if "thrown in the worker" in r["text"]]
    assert [(r["kind"], r.get("source"), r["target"]) for r in worker] == [("exception", "worker", "page"),
                                                                          ("exception", None, "frame")], worker
    said = [r for r in records if "the page says so itself" in r["text"]]
    assert [r["kind"] for r in said] == ["console"]
    assert ("page", "Runtime.enable") not in sent and not [m for _, m in sent if m == "Runtime.enable"], sent


def test_clawrec_run_records_the_first_documents_exceptions(tmp_path, capsys):
    """The pipeline hands the console layer the recorder's Chromium log: a page that throws and navigates away, the
    next one sending the terminal request, with an agent that only waits."""
    from tests.pipeline.helpers import jsonl, run_cli

    pages = {"/": "<script>setTimeout(() => { location.href = '/next'; }, 200); throw new Error('left behind');"
                  "</script>",
             "/next": "<script>fetch('/api/done', {method: 'POST', body: 'x=1'}).catch(() => 0);</script>"}
    site = LoopbackSite(lambda method, path, body: ("text/html", pages.get(path, "").encode()))
    spec = tmp_path / "nav.yaml"
    spec.write_text(f"version: 1\nid: nav\ninstruction: Wait.\nstart_url: {site.url}\nlimits: {{time_s: 60}}\n"
                    f"intercept:\n  - url: \"{site.url}api/done\"\n    method: POST\n")
    try:
        code, out, err = run_cli([str(spec), "--agent", "command", "--agent-cmd", "sleep 60", "--headless",
                                  "--no-judge", "--runs-dir", str(tmp_path / "runs")], capsys)
    finally:
        site.close()
    assert code == 0, err
    thrown = [r for r in jsonl(Path(out[-1]), "console.jsonl") if r["kind"] == "exception"]
    assert [(r["text"], r["url"], r["via"]) for r in thrown] == [("Uncaught Error: left behind", site.url,
                                                                  "chromium log")], thrown
