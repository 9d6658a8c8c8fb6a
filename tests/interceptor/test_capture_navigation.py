"""--archive keeps the body of an XHR whose page navigates away at once (issue 34, misago's sign-in: the /api/auth/
JSON answer's success handler submits the hidden /login/ form). Network.getResponseBody after loadingFinished raced
the navigation: Chrome drops the old document's bodies, the archive held the answer empty and cut, and the offline
replay gave jQuery an empty JSON answer (a parse error: no form submitted, the replay stalled after the login XHR).
A real headless Chromium on a loopback site that does the same, several times over."""

from __future__ import annotations

import asyncio
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

from archive.warc import read_warc
from interceptor.capture import Capture

ANSWER = b'{"id": 7, "username": "alex", "padding": "' + b"x" * 20000 + b'"}'
PAGE = b"""<!doctype html><form id=f method=post action=/login><input name=u value=alex></form><script>
const x = new XMLHttpRequest(); x.open("POST", "/api/auth"); x.responseType = "json";
x.onload = () => { if (x.response && x.response.id === 7) document.getElementById("f").submit(); };
x.send('{"username": "alex"}');
</script>"""


class Site(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass

    def _send(self, status: int, body: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        for k, v in {**headers, "Content-Length": str(len(body))}.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        start = self.path.split("?")[0] == "/"
        self._send(200, PAGE if start else b"<p>signed in</p>", {"Content-Type": "text/html"})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path == "/api/auth":
            self._send(200, ANSWER, {"Content-Type": "application/json", "Cache-Control": "no-store"})
        else:
            self._send(302, b"", {"Location": "/done"})


@contextmanager
def serve() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Site)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_port
    finally:
        server.shutdown()
        server.server_close()


async def _record(run_dir: Path, port: int, loads: int) -> None:
    from clawrec.startpage import open_start_page
    from interceptor.core import Interceptor
    from recorder.browser import launch_browser
    from rundir.records import RunClock
    from taskspec.spec_runs import load_spec_text

    spec = load_spec_text(f'version: 1\nid: nav\ninstruction: Wait.\nstart_url: "http://127.0.0.1:{port}/"\n'
                          f'intercept:\n  - url: "http://127.0.0.1:{port}/never"\n    method: POST\n',
                          run_dir / "nav.yaml")
    browser = launch_browser(headless=True)
    icpt = Interceptor(spec, run_dir, RunClock(), archive=Capture(run_dir), kill_browser=browser.kill)
    try:
        await icpt.attach(browser.ws_url)
        for n in range(loads):
            await open_start_page(browser.ws_url, f"http://127.0.0.1:{port}/?n={n}")
            for _ in range(600):  # each load ends on /done (the form's redirect): a condition, not a sleep
                log = run_dir / "http.jsonl"
                lines = log.read_text().splitlines() if log.exists() else []
                if sum(f'"url":"http://127.0.0.1:{port}/done"' in line for line in lines) > n:
                    break
                await asyncio.sleep(0.05)
        assert icpt.failure is None
    finally:
        await icpt.close(close_browser=True)
        browser.close()


def test_an_xhr_answer_survives_the_navigation_its_handler_starts(tmp_path):
    loads = 5
    with serve() as port:
        asyncio.run(_record(tmp_path, port, loads))
    exchanges = read_warc(tmp_path / "archive.warc.gz").exchanges
    assert sum(ex.url.endswith("/done") for ex in exchanges) == loads  # each load's form was submitted
    answers = [ex for ex in exchanges if ex.url.endswith("/api/auth")]
    assert len(answers) == loads
    assert [(ex.body == ANSWER, ex.truncated) for ex in answers] == [(True, False)] * loads
