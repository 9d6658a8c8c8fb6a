"""The frozen web (issue 22), end to end with real Chromium on a drifting site (sites/drift): a scripted agent orders
with --archive; the site drifts (button renamed, prices changed) and the same agent fails live; with --site-from
the recorded run it succeeds offline (terminal caught, PASS, 0 requests reach the site, hit rate >= 99 %, no miss);
two replays send the same requests and the same payload; the WACZ passes `wacz validate` and pywb serves its start
page with the recorded body."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from archive.source import open_source
from sites.drift.app import serve_drift
from tests.pipeline.helpers import REPO, jsonl, manifest

AGENT = f"{sys.executable} {REPO / 'tests/pipeline/agent_scripts/drift_agent.py'}"
BIN = Path(sys.executable).parent
PYWB = """
import sys
from pywb.apps.frontendapp import FrontEndApp
from werkzeug.test import Client
r = Client(FrontEndApp()).get('/frozen/id_/' + sys.argv[1])
sys.stdout.write('\\n@@pywb ' + str(r.status_code) + '\\n')
sys.stdout.buffer.write(r.data)
"""


def _spec(folder: Path, urls: dict[str, str]) -> Path:
    spec = folder / "drift-order.yaml"
    spec.write_text(f"""version: 1
id: drift-order
category: daily
instruction: Order the driftwood lamp.
start_url: {urls['shop']}
user: {{first_name: Alex, last_name: Doe, email: alex@example.com}}
limits: {{time_s: 90, steps: 50}}
intercept:
  - url: "{urls['shop']}api/order"
    method: POST
    fields: [item, price, csrf_token]
expect: {{item: lamp-01}}
volatile: [csrf_token]
""")
    return spec


def _run(spec: Path, run_dir: Path, *extra: str, agent: str = AGENT) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "clawrec.cli", "run", str(spec), "--agent", "command",
                             "--agent-cmd", agent, "--headless", "--run-dir", str(run_dir), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)


def _done(proc: subprocess.Popen) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=240)
    return proc.returncode, out, err


def _without_service_worker(rec: Path, out: Path) -> Path:
    """The run's archive without its service worker's script (a .warc.gz source, as a user may hand one in)."""
    from archive.warc import WarcFile, read_warc

    got = read_warc(rec / "archive.warc.gz")
    warc = WarcFile(out)
    for e in got.exchanges:
        if not e.url.endswith("/sw.js"):
            warc.exchange(e.method, e.url, e.req_headers, e.req_body, e.status, e.reason, e.headers, e.body, e.date)
    warc.metadata(got.info)
    warc.close()
    return out


@pytest.fixture(scope="module")
def frozen(tmp_path_factory):
    root = tmp_path_factory.mktemp("frozen")
    with serve_drift() as site:
        spec = _spec(root, site.urls)
        rec = root / "rec"
        code, out, err = _done(_run(spec, rec, "--archive", "--no-judge"))
        assert code == 0, err
        recorded_log = list(site.log)
        # Two replays at once, the site still up (v1): nothing may reach it.
        before = len(site.log)
        nosw = _without_service_worker(rec, root / "nosw.warc.gz")
        reps = [_run(spec, root / f"rep{i}", "--site-from", str(rec), "--reference", str(rec)) for i in (1, 2)]
        missing = _run(spec, root / "rep-nosw", "--site-from", str(nosw), "--no-judge")
        results = [_done(p) for p in reps]
        missing_result = _done(missing)
        replay_log = site.log[before:]
        # The site drifts; the same agent runs live while the WACZ is made, validated and served by pywb.
        site.version = 2
        live = _run(spec, root / "live", "--reference", str(rec))
        wacz = root / "rec.wacz"
        archived = subprocess.run([sys.executable, "-m", "clawrec.cli", "archive", str(rec), "--wacz", str(wacz)],
                                  capture_output=True, text=True, cwd=REPO, timeout=120)
        valid = subprocess.run([str(BIN / "wacz"), "validate", "-f", str(wacz)], capture_output=True, text=True,
                               timeout=120)
        pywb_dir = root / "pywb"
        pywb_dir.mkdir()
        subprocess.run([str(BIN / "wb-manager"), "init", "frozen"], cwd=pywb_dir, check=True, capture_output=True)
        subprocess.run([str(BIN / "wb-manager"), "add", "--unpack-wacz", "frozen", str(wacz)], cwd=pywb_dir,
                       check=True, capture_output=True, timeout=120)
        start = site.urls["shop"] + "shop"
        pywb = subprocess.run([sys.executable, "-c", PYWB, start], cwd=pywb_dir, capture_output=True, timeout=120)
        live_result = _done(live)
    return {"root": root, "rec": rec, "spec": spec, "recorded_log": recorded_log, "replays": results,
            "missing": missing_result,
            "replay_log": replay_log, "live": live_result, "archived": archived, "valid": valid, "pywb": pywb,
            "start": start, "urls": dict(site.urls)}


def test_archive_holds_every_exchange_as_the_browser_got_it(frozen):
    rec = frozen["rec"]
    m = manifest(rec)
    assert m["status"] == "intercepted" and m["site"]["mode"] == "live" and m["site"]["live_requests"] > 0
    assert m["site"]["archive"]["exchanges"] >= 10 and m["site"]["archive"]["truncated"] == 0
    got = open_source(rec)
    by = {(e.method, e.url.split("?")[0]): e for e in got.exchanges}
    shop = frozen["urls"]["shop"]
    assert by[("GET", shop)].status == 302 and by[("GET", shop)].header("location") == "/shop"
    page = by[("GET", shop + "shop")]
    cookies = [v for k, v in page.headers if k.lower() == "set-cookie"]
    assert len(cookies) == 2 and any(c.startswith("drift_theme=sand") for c in cookies)
    assert any(c.startswith("drift_session=[redacted]") for c in cookies)  # HttpOnly: a replay never needs it
    products = by[("GET", shop + "api/products")]
    assert json.loads(products.body)[0]["button"] == "Order now"  # stored decoded (the server sent gzip)
    assert products.header("x-orig-content-encoding") == "gzip" and not products.header("content-encoding")
    assert json.loads(by[("POST", shop + "api/search")].req_body) == {"q": "lamp"}
    stock = frozen["urls"]["stock"] + "api/stock"
    assert by[("OPTIONS", stock)].status == 204 and by[("GET", stock)].status == 200
    assert by[("GET", shop + "static/item.png")].body.startswith(b"\x89PNG")
    assert by[("GET", shop + "static/clip.webm")].status == 206 and by[("GET", shop + "sw.js")].status == 200
    assert ("POST", shop + "api/order") not in by  # the terminal request was caught: it never got an answer
    assert got.info["start_epoch"] > 0 and got.info["pages"][0]["url"] == shop
    recorded = {(r["method"], r["path"]) for r in frozen["recorded_log"]}
    assert {("OPTIONS", "/api/stock"), ("POST", "/api/search"), ("GET", "/static/clip.webm")} <= recorded
    assert any(r["range"] for r in frozen["recorded_log"] if r["path"] == "/static/clip.webm")


def test_drifted_site_fails_live(frozen):
    code, out, err = frozen["live"]
    run_dir = frozen["root"] / "live"
    m = manifest(run_dir)
    assert m["status"] == "agent_error" and "Order now" in m["stop_reason"], (out, err)
    assert jsonl(run_dir, "interceptions.jsonl") == []
    assert json.loads((run_dir / "verdict.json").read_text())["verdict"] == "FAIL"


def test_replay_succeeds_offline(frozen):
    assert frozen["replay_log"] == []  # the site's own log: not one request while the replays ran
    reference = jsonl(frozen["rec"], "interceptions.jsonl")[0]
    for i, (code, out, err) in enumerate(frozen["replays"], 1):
        run_dir = frozen["root"] / f"rep{i}"
        assert code == 0, err
        m = manifest(run_dir)
        assert m["status"] == "intercepted" and "verdict: PASS" in out, (out, err)
        site = m["site"]
        assert site["mode"] == "archive" and site["source"] == str(frozen["rec"]) and site["live_requests"] == 0
        assert site["misses"] == 0 and site["hit_rate"] >= 0.99 and site["requests"] >= 10
        lines = jsonl(run_dir, "replay.jsonl")
        assert [x for x in lines if x["tier"] == "miss"] == []
        tiers = {(x["method"], x["url"].split("?")[0]): x for x in lines}
        stock = frozen["urls"]["stock"] + "api/stock"
        assert tiers[("OPTIONS", stock)]["status"] == 204 and tiers[("GET", stock)]["status"] == 200
        assert tiers[("GET", frozen["urls"]["shop"] + "static/clip.webm")]["status"] == 206
        catch = jsonl(run_dir, "interceptions.jsonl")[0]
        assert catch["body"] == reference["body"]  # the archived CSRF token and the v1 price


def test_a_miss_is_a_404_listed_and_the_run_goes_on(frozen):
    """The service worker's script is not in this archive: its registration gets a 404 (a miss in replay.jsonl and
    the manifest); the worker target that closes while it is being prepared is gone, not unprotected, so the
    browser is not killed and the agent still orders."""
    code, out, err = frozen["missing"]
    run_dir = frozen["root"] / "rep-nosw"
    m = manifest(run_dir)
    assert code == 0 and m["status"] == "intercepted", (out, err)
    misses = [x for x in jsonl(run_dir, "replay.jsonl") if x["tier"] == "miss"]
    assert [(x["method"], x["url"].rsplit("/", 1)[1], x["status"]) for x in misses] == [("GET", "sw.js", 404)]
    assert m["site"]["misses"] == 1 and m["site"]["source"].endswith("nosw.warc.gz")


def test_two_replays_send_the_same_requests_and_payload(frozen):
    runs = [frozen["root"] / f"rep{i}" for i in (1, 2)]
    seqs = [[(x["method"], x["url"]) for x in jsonl(r, "replay.jsonl")] for r in runs]
    assert sorted(seqs[0]) == sorted(seqs[1])  # seeded Math.random: the same cache-buster values
    path = [[s for s in seq if "/api/" in s[1] and "config" not in s[1]] for seq in seqs]
    assert path[0] == path[1]  # the agent's path in the same order (config races the favicon: unordered)
    payloads = [jsonl(r, "interceptions.jsonl")[0]["raw"] for r in runs]
    assert payloads[0] == payloads[1]


def test_wacz_validates_and_pywb_replays_the_start_page(frozen):
    assert frozen["archived"].returncode == 0, frozen["archived"].stderr
    assert "Validation succeeded" in frozen["valid"].stdout, frozen["valid"].stdout + frozen["valid"].stderr
    status, _, body = frozen["pywb"].stdout.partition(b"\n@@pywb ")[2].partition(b"\n")  # (pywb prints too)
    assert status == b"200", frozen["pywb"].stderr.decode()[-2000:]
    recorded = next(e for e in open_source(frozen["rec"]).exchanges if e.url == frozen["start"])
    assert body == recorded.body and b"Driftwood Goods" in body


def test_bad_site_from_is_one_line(tmp_path, capsys):
    from clawrec.cli import main

    with serve_drift() as site:
        spec = _spec(tmp_path, site.urls)
        code = main(["run", str(spec), "--agent", "command", "--agent-cmd", "true", "--site-from", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err[-1].startswith("clawrec: --site-from") and "archive.warc.gz" in err[-1]
    code = main(["archive", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and "archive.warc.gz" in err[-1]


def test_report_shows_the_site_and_the_replay_misses(frozen, tmp_path):
    import shutil

    from evaluator.report import write_report

    run = tmp_path / "rep1"
    shutil.copytree(frozen["root"] / "rep1", run)
    with open(run / "replay.jsonl", "a") as fh:
        fh.write(json.dumps({"t": 9.5, "method": "GET", "url": "http://127.0.0.1:9/gone.js", "tier": "miss",
                             "status": 404}) + "\n")
    html = Path(write_report(run)).read_text()
    assert "hit rate 1.0" in html and "0 live" in html
    assert "replay miss: GET http://127.0.0.1:9/gone.js" in html
