"""Frozen web behind a service worker (issue 35 item 1), end to end with real Chromium: a site whose every request
is its pass-through worker's (`install → skipWaiting`, `activate → clients.claim`, `fetch →
e.respondWith(fetch(e.request))`) is recorded with --archive and replayed with --site-from, from the run directory
and from its WACZ, and the held-out shape of the drifting shop (sites/drift with the pass-through worker, drifted
before the replay) likewise. Each replay answers every request the worker makes (the product page, its image, a
cross-origin API with its CORS preflight, a search POST, a Range request) from the archive, sends nothing to the
live servers (their own logs; the page also asks for the worker's update check, which Chromium sends past
DevTools), and catches the order with the archived CSRF token: PASS."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from archive.source import open_source
from sites.drift.app import serve_drift
from tests.pipeline.helpers import REPO, jsonl, manifest
from tests.pipeline.sw_site import MANUAL, PNG, Shop, StockApi
from tests.pipeline.test_frozen_web import _done, _run as run_frozen, _spec as drift_spec

AGENTS = REPO / "tests/pipeline/agent_scripts"


def _spec(folder: Path, shop: str) -> Path:
    spec = folder / "harbor-order.yaml"
    spec.write_text(f"""version: 1
id: harbor-order
category: daily
instruction: Order the harbor lamp.
start_url: {shop}
user: {{first_name: Alex, last_name: Doe, email: alex@example.com}}
limits: {{time_s: 90, steps: 50}}
intercept:
  - url: "{shop}api/order"
    method: POST
    fields: [item, csrf_token]
expect: {{item: lamp}}
volatile: [csrf_token]
""")
    return spec


def _run(spec: Path, agent: str, run_dir: Path, *extra: str) -> subprocess.Popen:
    token = f" {run_dir}.token"  # where the agent writes the hash of the page's CSRF token
    return run_frozen(spec, run_dir, *extra, agent=f"{sys.executable} {AGENTS / agent}{token}")


@pytest.fixture(scope="module")
def worker(tmp_path_factory):
    root = tmp_path_factory.mktemp("worker")
    with StockApi("api") as api, Shop(api) as shop, serve_drift(worker="passthrough") as drift:
        spec, dspec = _spec(root, shop.url), drift_spec(root, drift.urls)
        recs = [_run(spec, "sw_agent.py", root / "rec", "--archive", "--no-judge"),
                _run(dspec, "drift_agent.py", root / "drift-rec", "--archive", "--no-judge")]
        recorded = [_done(p) for p in recs]
        archived = subprocess.run([sys.executable, "-m", "clawrec.cli", "archive", str(root / "rec"), "--wacz",
                                   str(root / "rec.wacz")], capture_output=True, text=True, cwd=REPO, timeout=120)
        drift.version = 2  # the held-out shop drifted: only the archive still has the recorded one
        before = (len(shop.log), len(api.log), len(drift.log), len(drift.tokens))
        # Two browsers at a time (the machine is shared): the run-dir and WACZ replays, then the drifted shop's.
        reps = [_run(spec, "sw_agent.py", root / "rep-dir", "--site-from", str(root / "rec"),
                     "--reference", str(root / "rec")),
                _run(spec, "sw_agent.py", root / "rep-wacz", "--site-from", str(root / "rec.wacz"),
                     "--reference", str(root / "rec"))]
        replayed = [_done(p) for p in reps]
        replayed.append(_done(_run(dspec, "drift_agent.py", root / "drift-rep", "--site-from",
                                   str(root / "drift-rec"), "--reference", str(root / "drift-rec"))))
        live = (shop.log[before[0]:], api.log[before[1]:], drift.log[before[2]:])
        return {"root": root, "recorded": recorded, "archived": archived, "replayed": replayed, "live": live,
                "shop_log": shop.log[:before[0]], "api_log": api.log[:before[1]], "tokens": list(shop.tokens),
                "drift_tokens": (list(drift.tokens), before[3]),
                "shop": shop.url, "api": api.url, "drift": dict(drift.urls)}


def _worker_requests(run_dir: Path) -> set[tuple[str, str]]:
    """(method, URL) of every request the service worker sent in a run (its HTTP log), the caught order aside."""
    return {(r["method"], r["url"]) for r in jsonl(run_dir, "http.jsonl")
            if r.get("type") == "request" and r.get("target") == "service_worker" and not r.get("intercepted")
            and not r["url"].endswith("/sw.js")}


def test_the_archive_holds_each_worker_exchange_whole(worker):
    for code, out, err in worker["recorded"]:
        assert code == 0 and "intercepted" in out, (out, err)
    rec = worker["root"] / "rec"
    shop, api = worker["shop"], worker["api"]
    sent = _worker_requests(rec)
    assert {("GET", shop + "product/lamp"), ("GET", shop + "static/lamp.png"), ("OPTIONS", api + "api/stock?item=lamp"),
            ("GET", api + "api/stock?item=lamp"), ("POST", shop + "api/search"),
            ("GET", shop + "static/manual.txt")} <= sent
    got = open_source(rec).exchanges
    by = {}
    for e in got:
        by.setdefault((e.method, e.url), []).append(e)
    # One exchange per request the site answered: the page's copy of a worker's answer is not a second one.
    assert all(len(v) == 1 for v in by.values()), sorted(k for k, v in by.items() if len(v) > 1)
    page = by[("GET", shop + "product/lamp")][0]
    assert worker["tokens"][0].encode() in page.body and not page.truncated  # read whole, not 0 bytes
    assert by[("GET", shop + "static/lamp.png")][0].body == PNG
    assert by[("GET", shop + "static/manual.txt")][0].body == MANUAL[6:12]
    assert by[("GET", shop + "static/manual.txt")][0].status == 206
    assert json.loads(by[("POST", shop + "api/search")][0].req_body) == {"q": "lamp"}
    assert json.loads(by[("GET", api + "api/stock?item=lamp")][0].body)["in_stock"] == 4
    assert by[("OPTIONS", api + "api/stock?item=lamp")][0].status == 204
    assert not any(r["method"] == "POST" and r["path"] == "/api/order" for r in worker["shop_log"])
    sw = [r for r in worker["shop_log"] if r["path"] == "/sw.js"]
    assert len(sw) == 2  # the registration's, and the update check the page asks for (never in DevTools)
    assert worker["archived"].returncode == 0, worker["archived"].stderr


@pytest.mark.parametrize("name", ["rep-dir", "rep-wacz"])
def test_a_replay_answers_every_worker_request_from_the_archive(worker, name):
    code, out, err = worker["replayed"][["rep-dir", "rep-wacz"].index(name)]
    run_dir = worker["root"] / name
    m = manifest(run_dir)
    assert code == 0 and m["status"] == "intercepted" and "verdict: PASS" in out, (out, err[-3000:])
    assert worker["live"][0] == [] and worker["live"][1] == []  # the servers' own logs: nothing reached them
    site = m["site"]
    assert site["mode"] == "archive" and site["misses"] == 0 and site["live_requests"] == 0
    lines = jsonl(run_dir, "replay.jsonl")
    answered = {(x["method"], x["url"]) for x in lines if x["tier"] != "miss"}
    assert _worker_requests(worker["root"] / "rec") <= answered
    assert _worker_requests(run_dir) == _worker_requests(worker["root"] / "rec")  # the worker sent them again
    by = {(x["method"], x["url"]): x for x in lines}
    assert by[("GET", worker["shop"] + "static/manual.txt")]["status"] == 206
    assert by[("OPTIONS", worker["api"] + "api/stock?item=lamp")]["status"] == 204
    catch = jsonl(run_dir, "interceptions.jsonl")[0]
    reference = jsonl(worker["root"] / "rec", "interceptions.jsonl")[0]
    assert catch["target_type"] == reference["target_type"] == "service_worker"
    assert catch["body"] == reference["body"]  # the token itself is redacted in run files: its hash, as the page had it
    page_token = (worker["root"] / f"{name}.token").read_text()
    assert page_token == hashlib.sha256(worker["tokens"][0].encode()).hexdigest() == (
        worker["root"] / "rec.token").read_text()
    assert len(worker["tokens"]) == 1  # no product page (no new token) was served live
    assert json.loads((run_dir / "verdict.json").read_text())["verdict"] == "PASS"


def test_the_drifting_shop_behind_its_worker_replays_offline(worker):
    rec, rep = worker["root"] / "drift-rec", worker["root"] / "drift-rep"
    code, out, err = worker["replayed"][2]
    assert code == 0 and manifest(rep)["status"] == "intercepted" and "verdict: PASS" in out, (out, err[-3000:])
    assert worker["live"][2] == []  # the drifted shop's own log: not one request while the replay ran
    shop, stock = worker["drift"]["shop"], worker["drift"]["stock"]
    sent = _worker_requests(rec)
    assert {("GET", shop + "shop"), ("GET", shop + "static/item.png"), ("GET", shop + "static/clip.webm"),
            ("POST", shop + "api/search"), ("OPTIONS", stock + "api/stock?item=lamp-01")} <= sent
    lines = jsonl(rep, "replay.jsonl")
    assert [x for x in lines if x["tier"] == "miss"] == [] and manifest(rep)["site"]["live_requests"] == 0
    assert _worker_requests(rec) - {(x["method"], x["url"]) for x in lines} <= {
        (m, u) for m, u in sent if "/api/products?" in u}  # cache-busted: the replay's own value, same tier
    catch = jsonl(rep, "interceptions.jsonl")[0]
    reference = jsonl(rec, "interceptions.jsonl")[0]
    assert catch["target_type"] == "service_worker" and catch["body"] == reference["body"]
    assert catch["body"]["price"] == 49.0  # the recorded v1 price, not the drifted site's
    tokens, issued = worker["drift_tokens"]
    assert len(tokens) == issued  # no page (no new token) was served live during the replay
    digest = hashlib.sha256(tokens[-1].encode()).hexdigest()  # the page the worker served (after the reload)
    seen = [(worker["root"] / f"{name}.token").read_text() for name in ("drift-rec", "drift-rep")]
    assert seen == [digest, digest]
