"""interceptor/capture.py's secrets policy on what it archives (no browser: the exchange is handed in as the Network
events leave it): request headers and bodies redacted like http.jsonl, learnt secrets too, HttpOnly or secret-named
Set-Cookie values redacted, response bodies kept."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime, timezone

from archive.warc import read_warc
from interceptor.capture import Capture


def test_archive_redacts_requests_and_keeps_responses(tmp_path):
    cap = Capture(tmp_path, secrets=["spec-secret-1"])
    cap.secrets = ["typed-hunter22"]  # learnt at run time (a password input), as the recorder teaches its writers
    cap._write({"method": "POST", "url": "http://127.0.0.1:9/login?token=abc123&q=1",
                "headers": {"Content-Type": "application/x-www-form-urlencoded", "Cookie": "sid=1",
                            "X-Note": "spec-secret-1"},
                "body": b"user=alex&password=pw-in-clear&note=typed-hunter22", "date": datetime.now(timezone.utc),
                "status": 200, "reason": "OK",
                "resp_headers": [("Set-Cookie", "sid=abc; HttpOnly; Path=/"), ("Set-Cookie", "theme=sand; Path=/"),
                                 ("Set-Cookie", "auth_token=zzz; Path=/")]},
               b'{"welcome": "alex"}', False)
    asyncio.run(cap.close())
    ex = read_warc(cap.path).exchanges[0]
    text = ex.req_body.decode()
    assert "pw-in-clear" not in text and "typed-hunter22" not in text and "user=alex" in text
    req = dict(ex.req_headers)
    assert req["Cookie"] == "[redacted]" and req["X-Note"] == "[redacted]"
    assert "abc123" not in ex.url and "q=1" in ex.url
    cookies = [v for k, v in ex.headers if k == "Set-Cookie"]
    assert cookies == ["sid=[redacted]; HttpOnly; Path=/", "theme=sand; Path=/", "auth_token=[redacted]; Path=/"]
    assert ex.body == b'{"welcome": "alex"}'  # a replay needs the response as it was
    assert cap.stats["exchanges"] == 1 and cap.stats["bytes"] > 0


def test_archive_holds_every_target_of_the_footprint_page(tmp_path):
    """A real headless run on the detector page (tests/footprint: page + cross-site iframe + a dedicated worker in
    each): the iframe's document and both workers' scripts (their Network events span two sessions) and every POSTed
    report (a 204 Chrome ends with ERR_ABORTED) are archived, the POST bodies redacted by the run's policy."""
    from interceptor.core import Interceptor
    from clawrec.startpage import open_start_page
    from recorder.browser import launch_browser
    from rundir.records import RunClock
    from taskspec.spec_runs import load_spec_text
    from tests.footprint.server import serve

    async def run(port: str, reports) -> Capture:
        spec = load_spec_text(f'version: 1\nid: fp\ninstruction: Wait.\nstart_url: "http://127.0.0.1:{port}/"\n'
                              f'intercept:\n  - url: "http://127.0.0.1:{port}/never"\n    method: POST\n',
                              tmp_path / "fp.yaml")
        browser = launch_browser(headless=True)
        cap = Capture(tmp_path)
        cap.secrets = ["iframe-worker"]  # learnt at run time: it is in the iframe worker's report and script URL
        icpt = Interceptor(spec, tmp_path, RunClock(), archive=cap, kill_browser=browser.kill)
        try:
            await icpt.attach(browser.ws_url)
            await open_start_page(browser.ws_url, f"http://127.0.0.1:{port}/detect.html?frame=http://localhost:{port}")
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(None, reports.wait, {"page", "iframe", "page-worker", "iframe-worker"}, 60)
            for _ in range(600):  # the server has each report before Chrome has its 204: wait for the four ends
                log = tmp_path / "http.jsonl"
                if (log.read_text() if log.exists() else "").count('"method":"POST"') == 4:
                    break
                await asyncio.sleep(0.05)
            assert icpt.failure is None
        finally:
            await icpt.close(close_browser=True)
            browser.close()
        return cap

    with serve() as (port, reports):
        asyncio.run(run(port, reports))
    exchanges = read_warc(tmp_path / "archive.warc.gz").exchanges
    got = {(ex.method, ex.url.replace(f":{port}", "")): ex for ex in exchanges}
    for doc in ("http://127.0.0.1/detect.html?frame=http://localhost", "http://localhost/detect.html?where=iframe"):
        assert got[("GET", doc)].status == 200 and b"detect.js" in got[("GET", doc)].body, sorted(got)
    for script in ("http://127.0.0.1/worker.js?where=page-worker", "http://localhost/worker.js?where=[redacted]"):
        assert b"collect" in got[("GET", script)].body, sorted(got)
    posts = [ex for ex in exchanges if ex.method == "POST"]
    assert sorted(json.loads(ex.req_body)["where"] for ex in posts) == ["[redacted]", "iframe", "page", "page-worker"]
    assert all(ex.status == 204 for ex in posts) and not any(b"iframe-worker" in ex.req_body for ex in posts)
