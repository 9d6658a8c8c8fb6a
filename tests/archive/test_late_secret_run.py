"""A secret learnt late, end to end with real Chromium (issue 22): `clawrec run --archive` where the agent first
searches for a value in a plain search box (a form GET puts it in a URL and the next requests' Referer, the results
page echoes it in its HTML, posts it as a JSON note and gets it echoed back), and only then types it into a password
input (from then on a run secret). At finalize the archive is rewritten without it: the value, in any of its forms,
is in no file of the run directory (gzip'd files decompressed), `warcio check` verifies every digest, `clawrec
archive --wacz` passes `wacz validate`, and a `--site-from` replay of the run, the site gone, reaches the terminal
request again."""

from __future__ import annotations

import gzip
import html
import json
import shlex
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from rundir.redact import Redactor
from rundir.scrub import needles
from tests.pipeline.helpers import REPO, jsonl, manifest, run_cli
from tests.support.loopback import LoopbackSite

AGENT = Path(__file__).resolve().parent / "agent_scripts" / "late_secret_agent.py"
BIN = Path(sys.executable).parent
VALUE = "Late Pw-71x"  # typed into the search box first, then into the password input

START = """<!doctype html><title>Start</title><form action="/results" method="get">
<label for="q">Search</label><input id="q" name="q"><button>Search</button></form>"""
RESULTS = """<!doctype html><title>Results</title><p>Results for %s</p>
<label for="u">User</label><input id="u" name="user" value="alex">
<label for="p">Password</label><input id="p" name="pw" type="password">
<button id="go" type="button">Sign in</button><p id="status"></p>
<script>
const j = {'content-type': 'application/json'};
const q = new URLSearchParams(location.search).get('q') || '';
fetch('/api/note', {method: 'POST', headers: j, body: JSON.stringify({note: q})}).catch(() => null)
  .finally(() => { const m = document.createElement('i'); m.id = 'noted'; document.body.append(m); });
document.getElementById('go').addEventListener('click', () => {
  document.getElementById('status').textContent = 'sent';
  fetch('/api/login', {method: 'POST', headers: j, body: JSON.stringify({user: document.getElementById('u').value,
    password: document.getElementById('p').value})}).catch(() => null);
});
</script>"""


def _answer(method: str, path: str, body: bytes) -> tuple[str, bytes]:
    where, query = urlsplit(path).path, parse_qs(urlsplit(path).query)
    if where == "/":
        return "text/html", START.encode()
    if where == "/results":
        return "text/html", (RESULTS % html.escape(query.get("q", [""])[0])).encode()
    if where == "/api/note":  # the note saved, echoed back
        return "application/json", json.dumps({"saved": json.loads(body or b"{}").get("note")}).encode()
    return "application/json", b"{}"


def _spec(folder: Path, url: str) -> Path:
    path = folder / "late-secret.yaml"
    path.write_text(f"""version: 1
id: late-secret
instruction: Search for my password, then sign in with it.
start_url: {url}
limits: {{time_s: 90, steps: 50}}
intercept:
  - url: "{url}api/login"
    method: POST
expect: {{user: alex}}
""")
    return path


def _found(folder: Path, forms: list[bytes]) -> list[tuple[str, bytes]]:
    hits = []
    for path in folder.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            if path.suffix == ".gz":
                data = gzip.decompress(data)
            hits += [(str(path.relative_to(folder)), f) for f in forms if f in data]
    return hits


def test_a_secret_typed_late_is_in_no_run_file_and_the_archive_still_replays(tmp_path, capsys):
    site = LoopbackSite(_answer)
    agent = f"{sys.executable} {AGENT} {shlex.quote(VALUE)}"
    try:
        spec = _spec(tmp_path, site.url)
        code, out, err = run_cli([str(spec), "--agent", "command", "--agent-cmd", agent, "--headless", "--archive",
                                  "--no-judge", "--runs-dir", str(tmp_path / "runs")], capsys)
        assert code == 0, err
    finally:
        site.close()
    run_dir = Path(out[-1])
    # The site really got the value before it was a secret: in the URL, the note and the login.
    paths = [p for _, p in site.log]
    assert "/results?q=Late+Pw-71x" in paths and ("POST", "/api/note") in site.log
    assert manifest(run_dir)["status"] == "intercepted"
    assert jsonl(run_dir, "interceptions.jsonl")[0]["body"] == {"user": "alex", "password": "[redacted]"}
    forms = [f.encode() for f in needles(Redactor([VALUE]))]
    assert b"Late+Pw-71x" in forms and b"Late%20Pw-71x" in forms
    assert _found(run_dir, forms) == []
    # The archive kept every exchange, the value replaced where it was, and is still the field's format.
    from archive.warc import read_warc

    got = read_warc(run_dir / "archive.warc.gz")
    by = {(e.method, e.url.replace(site.url, "/")): e for e in got.exchanges}
    results = by[("GET", "/results?q=[redacted]")]
    assert b"Results for [redacted]" in results.body and results.status == 200
    note = by[("POST", "/api/note")]
    assert json.loads(note.req_body) == {"note": "[redacted]"} and json.loads(note.body) == {"saved": "[redacted]"}
    assert dict(note.req_headers).get("Referer") == f"{site.url}results?q=[redacted]"
    check = subprocess.run([str(BIN / "warcio"), "check", "-v", str(run_dir / "archive.warc.gz")],
                           capture_output=True, text=True, timeout=120)
    assert check.returncode == 0 and "failed" not in check.stdout and check.stdout.count("digest pass") == \
        2 * len(got.exchanges) + 2, check.stdout  # + warcinfo and the replay info
    wacz = tmp_path / "late.wacz"
    archived = subprocess.run([sys.executable, "-m", "clawrec.cli", "archive", str(run_dir), "--wacz", str(wacz)],
                              capture_output=True, text=True, cwd=REPO, timeout=120)
    assert archived.returncode == 0, archived.stderr
    valid = subprocess.run([str(BIN / "wacz"), "validate", "-f", str(wacz)], capture_output=True, text=True,
                           timeout=120)
    assert valid.returncode == 0, valid.stdout + valid.stderr
    # Replayed from the scrubbed archive, the site gone: the same agent reaches the terminal request again (the
    # results page and the note by the normalized tier: a field archived [redacted] is ignored there, as a volatile
    # one is, since the replayed page sends the value in clear: archive/keys.py redacted_fields).
    code, out, err = run_cli([str(spec), "--agent", "command", "--agent-cmd", agent, "--headless", "--no-judge",
                              "--site-from", str(run_dir), "--run-dir", str(tmp_path / "replayed")], capsys)
    assert code == 0, err
    replayed = tmp_path / "replayed"
    assert manifest(replayed)["status"] == "intercepted" and manifest(replayed)["site"]["live_requests"] == 0
    tiers = {(r["method"], r["url"].replace(site.url, "/")): r["tier"] for r in jsonl(replayed, "replay.jsonl")
             if not r["url"].endswith("/favicon.ico")}  # (asked for by the browser, or not: no part of the test)
    assert tiers == {("GET", "/"): "exact", ("POST", "/api/note"): "normalized",
                     ("GET", "/results?q=[redacted]"): "normalized"}, tiers  # (typed again: this run's secret too)
    assert _found(replayed, forms) == []
    assert jsonl(replayed, "interceptions.jsonl")[0]["url"] == f"{site.url}api/login"
