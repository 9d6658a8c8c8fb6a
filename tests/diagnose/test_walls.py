"""Verification walls: a local look-alike of a Cloudflare challenge page (markers only: the 403 with
`cf-mitigated: challenge`, the challenge-platform script, a Turnstile widget script, reCAPTCHA's api.js) met by a real
`clawrec run`: the diagnosis is `verification_wall` with its evidence (URL, marker), and each vendor's markers are
recognised in requests, responses and words."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from evaluator.diagnose import diagnose
from evaluator.walls import Wall, find, response_marker
from rundir.layers import HttpRecord
from taskspec.load import load_spec

REPO = Path(__file__).resolve().parents[2]
WAIT_AGENT = REPO / "tests" / "footprint" / "wait_agent.py"
PAGE = b"""<!doctype html><html><head><title>Just a moment...</title>
<script src="/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray=8f0"></script>
<script src="/turnstile/v0/api.js" async defer></script></head>
<body><h1>Verify you are human</h1><div class="cf-turnstile" data-sitekey="0x4AAA"></div>
<script src="/recaptcha/api.js"></script></body></html>"""
SPEC = """version: 1
id: wall
instruction: Send the form.
start_url: "http://127.0.0.1:{port}/"
limits: {{time_s: 60}}
intercept:
  - url: "http://127.0.0.1:{port}/submit"
    method: POST
expect: {{name: x}}
"""


class LookAlike(BaseHTTPRequestHandler):
    seen: list[str] = []

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        LookAlike.seen.append(self.path)
        if self.path == "/":
            self.send_response(403)
            self.send_header("Content-Type", "text/html")
            self.send_header("cf-mitigated", "challenge")
            self.send_header("Server", "cloudflare")
            body = PAGE
        else:
            self.send_response(200)
            self.send_header("Content-Type", "text/javascript")
            body = b"/* look-alike: markers only */"
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_a_run_stopped_by_a_challenge_page_is_a_verification_wall(tmp_path):
    server = ThreadingHTTPServer(("127.0.0.1", 0), LookAlike)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    spec = tmp_path / "wall.yaml"
    spec.write_text(SPEC.format(port=port))
    done = tmp_path / "loaded"
    run = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "clawrec.cli", "run", str(spec), "--agent", "command",
                             "--agent-cmd", f"{sys.executable} {WAIT_AGENT} {done}", "--headless", "--no-judge",
                             "--run-dir", str(run)], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        deadline = time.monotonic() + 90
        while "/recaptcha/api.js" not in LookAlike.seen and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        done.touch()
        out, err = proc.communicate(timeout=90)
    finally:
        server.shutdown()
        server.server_close()
    assert proc.returncode == 0, err[-3000:]
    d = diagnose(run, None, load_spec(spec), write=False)
    assert d.category == "verification_wall", d.headline()
    wall = d.cause.to_dict()["wall"]
    # the first evidence in time: the page's own response (403, cf-mitigated) on the start URL
    assert wall["url"] == f"http://127.0.0.1:{port}/" and wall["marker"] == "cf-mitigated: challenge", wall
    assert "cf-mitigated: challenge" in d.cause.summary


def _req(url: str, t: float = 1.0, status: int = 200, headers: dict | None = None) -> HttpRecord:
    return HttpRecord(t=t, url=url, method="GET", response={"status": status, "headers": headers or {}})


@pytest.mark.parametrize("url, vendor", [
    ("https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit", "Cloudflare Turnstile"),
    ("https://shop.example/cdn-cgi/challenge-platform/h/b/jsd/r/8f", "Cloudflare challenge"),
    ("https://www.google.com/recaptcha/api2/anchor?k=x", "reCAPTCHA"),
    ("https://www.recaptcha.net/recaptcha/api.js", "reCAPTCHA"),
    ("https://js.hcaptcha.com/1/api.js", "hCaptcha"),
    ("https://geo.captcha-delivery.com/captcha/?initialCid=x", "DataDome"),
    ("https://captcha.px-cdn.net/PXabc/captcha.js", "PerimeterX/HUMAN"),
    ("https://shop.example/_sec/cp_challenge/sec-cpt-if?x=1", "Akamai"),
    ("https://client-api.arkoselabs.com/v2/api.js", "Arkose"),
])
def test_vendor_requests(url, vendor):
    wall = find([_req("https://shop.example/"), _req(url, t=2.0)])
    assert wall is not None and wall.vendor == vendor and wall.url == url and wall.source == "request"


@pytest.mark.parametrize("status, headers, vendor", [
    (403, {"cf-mitigated": "challenge"}, "Cloudflare challenge"),
    (403, {"Server": "cloudflare", "CF-RAY": "8f0-AMS"}, "Cloudflare"),
    (403, {"X-DataDome": "protected"}, "DataDome"),
    (429, {"X-PX-Block": "1"}, "PerimeterX/HUMAN"),
    (403, {"Server": "AkamaiGHost"}, "Akamai"),
])
def test_vendor_responses(status, headers, vendor):
    assert response_marker(status, {k.lower(): v for k, v in headers.items()})[0] == vendor


def test_no_wall_on_plain_pages():
    assert find([_req("https://shop.example/"), _req("https://shop.example/api", status=403,
                                                     headers={"server": "nginx"}),
                 _req("https://shop.example/captions.vtt")]) is None
    assert find([], console=[]) is None
    assert isinstance(find([_req("https://shop.example/", status=429, headers={"server": "cloudflare"})]), Wall)


def test_the_bench_counts_walls_apart():
    from clawrec.bench.plan import AgentEntry, Plan, SpecEntry
    from clawrec.bench.summary import render_csv, render_md, summarize

    def row(task, outcome, failure=None):
        return {"task": task, "label": "x", "outcome": outcome, "category": "travel", "intercepted": False,
                "duration": 1.0, "cost_usd": None, "judge_cost_usd": None, "failure_category": failure,
                "self_report_gap": False}

    plan = Plan(specs=[SpecEntry(t, f"/{t}.yaml", "0" * 64, "travel", 60) for t in "abc"], agents=[AgentEntry("x")],
                trials=1)
    s = summarize(plan, [row("a", "pass"), row("b", "fail", "never_submitted"), row("c", "wall")])
    x = s["rows"][0]
    assert x["counts"]["wall"] == 1 and x["columns"]["overall"]["stage2"]["n"] == 2  # out of the denominators
    assert x["columns"]["overall"]["stage1"]["n"] == 2 and x["failures"]["failed"] == 1
    assert any("verification wall" in n for n in s["notes"])
    md = render_md(s)
    assert "| verification walls |" in md and "| x | 3 | 1 | 1 | – | – | 0 | 1 | 0 |" in md
    assert render_csv(s).splitlines()[0].endswith(",verification_walls") and render_csv(s).splitlines()[1].endswith(",1")
