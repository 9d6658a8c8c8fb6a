"""Determinism in replay (issue 22), with real Chromium: a page, its cross-site iframe and its dedicated worker report
Date.now(), performance.timeOrigin, Math.random, crypto.getRandomValues and crypto.randomUUID; recorded with
--archive (the archive's start time then moved 400 days back), replayed twice with --site-from: the values are the
same in both replays, the clock reads the archive's start (not now), a setTimeout(500) still waits 500 ms, and the
requests of each initiator (document or worker) come in the same order."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest

from tests.pipeline.helpers import REPO, jsonl, manifest
from tests.support.loopback import LoopbackSite

AGENT = REPO / "tests/pipeline/agent_scripts/wait_reports_agent.py"
REPORTERS = ("page", "timer", "iframe", "worker")
DAY = 86400.0
BACK = 400  # days: an archive from more than a year ago (Chromium's log lines carry no year)
SNAP = """const snap = who => ({who, now: Date.now(), origin: performance.timeOrigin, pnow: performance.now(),
  rnd: Math.random(), cr: Array.from(crypto.getRandomValues(new Uint32Array(4))), uuid: crypto.randomUUID()});
const report = o => fetch('/report?who=' + o.who, {method: 'POST', headers: {'content-type': 'application/json'},
  body: JSON.stringify(o)});
"""
PAGES = {
    "/": "<!doctype html><title>clock</title><script>" + SNAP + """
const t0 = performance.now(), d0 = Date.now();
report(snap('page'));
Promise.all(['a', 'b', 'c'].map(x => fetch('/data/' + x)));
setTimeout(() => report({...snap('timer'), waited: performance.now() - t0, date_waited: Date.now() - d0}), 500);
new Worker('/worker.js');
setTimeout(() => { throw new Error('clock probe'); }, 0);
const frame = document.createElement('iframe');  // cross-site: localhost, the page being 127.0.0.1
frame.src = 'http://localhost:' + location.port + '/frame.html';
document.documentElement.appendChild(frame);
</script>""",
    "/frame.html": "<!doctype html><script>" + SNAP + "report(snap('iframe')); fetch('/data/f');</script>",
    "/worker.js": SNAP + "report(snap('worker')); fetch('/data/w');",
}


def _answer(method: str, path: str, body: bytes) -> tuple[str, bytes]:
    path = path.split("?")[0]
    kind = "text/javascript" if path.endswith(".js") else "text/html" if path in PAGES else "application/json"
    return kind, PAGES.get(path, '{"ok": true}').encode()


def _spec(folder: Path, base: str) -> Path:
    spec = folder / "clock.yaml"
    spec.write_text(f"""version: 1
id: clock
instruction: Wait.
start_url: "{base}/"
limits: {{time_s: 120}}
intercept:
  - url: "{base}/never"
    method: POST
""")
    return spec


def _run(spec: Path, run_dir: Path, *extra: str) -> tuple[int, str]:
    agent = " ".join([sys.executable, str(AGENT), *REPORTERS])
    proc = subprocess.run([sys.executable, "-m", "clawrec.cli", "run", str(spec), "--agent", "command",
                           "--agent-cmd", agent, "--headless", "--no-judge", "--run-dir", str(run_dir), *extra],
                          capture_output=True, text=True, cwd=REPO, timeout=240)
    return proc.returncode, proc.stderr


def _backdated(rec: Path, out: Path, days: float) -> tuple[Path, float]:
    """The run's archive with its start time `days` earlier (as if recorded then): a replay's clock must read it."""
    from archive.warc import WarcFile, read_warc

    got = read_warc(rec / "archive.warc.gz")
    warc = WarcFile(out)
    for e in got.exchanges:
        warc.exchange(e.method, e.url, e.req_headers, e.req_body, e.status, e.reason, e.headers, e.body, e.date)
    start = float(got.info["start_epoch"]) - days * DAY
    warc.metadata({**got.info, "start_epoch": start})
    warc.close()
    return out, start


def _reports(run_dir: Path) -> dict[str, dict]:
    got = {}
    for r in jsonl(run_dir, "http.jsonl"):
        if r.get("method") == "POST" and "/report?who=" in r["url"]:
            body = (r.get("body") or {}).get("value")
            got[body["who"]] = body
    return got


@pytest.fixture(scope="module")
def replays(tmp_path_factory):
    root = tmp_path_factory.mktemp("clock")
    site = LoopbackSite(_answer)
    port = int(site.url.rsplit(":", 1)[1].strip("/"))
    try:
        spec = _spec(root, f"http://127.0.0.1:{port}")
        code, err = _run(spec, root / "rec", "--archive")
        assert code == 0, err[-3000:]
        source, start = _backdated(root / "rec", root / "old.warc.gz", BACK)
        runs = []
        for i in (1, 2):
            began = time.time()
            code, err = _run(spec, root / f"rep{i}", "--site-from", str(source))
            assert code == 0, err[-3000:]
            runs.append({"dir": root / f"rep{i}", "began": began, "reports": _reports(root / f"rep{i}")})
    finally:
        site.close()
    return {"root": root, "start": start, "runs": runs, "start_url": f"http://127.0.0.1:{port}/",
            "frame_url": f"http://localhost:{port}/frame.html"}


def test_replays_draw_the_same_random_values(replays):
    a, b = (r["reports"] for r in replays["runs"])
    assert set(a) == set(b) == set(REPORTERS)
    for who in REPORTERS:
        for key in ("rnd", "cr", "uuid"):
            assert a[who][key] == b[who][key], (who, key, a[who][key], b[who][key])
    assert a["page"]["cr"] != a["timer"]["cr"] and a["page"]["uuid"] != a["timer"]["uuid"]  # a stream, not a constant
    assert len({tuple(a[w]["cr"]) for w in ("page", "iframe", "worker")}) == 3  # each context its own values


def test_the_clock_starts_at_the_archive_start_and_timers_wait_real_time(replays):
    start_ms = replays["start"] * 1000
    for run in replays["runs"]:
        for who, r in run["reports"].items():
            # Within a minute of the archive's start (the load's own seconds), 400 days before now.
            assert start_ms <= r["now"] < start_ms + 60_000, (who, r["now"] - start_ms)
            assert abs(r["origin"] + r["pnow"] - r["now"]) < 50, who  # performance.timeOrigin on the same clock
        timer = run["reports"]["timer"]
        assert 499 <= timer["waited"] < 10_000  # a real 500 ms wait (virtual time would not wait)
        assert abs(timer["date_waited"] - timer["waited"]) < 20  # Date advances with real time
        m = manifest(run["dir"])
        facts = m["site"]["determinism"]
        assert facts["clock_start_epoch"] == pytest.approx(replays["start"]) and facts["crypto_seed"]
        assert facts["clock_offset_s"] < -(BACK - 1) * DAY


def test_the_archive_says_what_a_replay_sets(replays):
    from archive.source import open_source

    info = open_source(replays["root"] / "rec").info
    facts = info["determinism"]
    assert facts["clock_start_epoch"] == pytest.approx(info["start_epoch"]) and facts["random_seed"] > 0
    assert "crypto.getRandomValues" in facts["seeded"]


def test_run_files_stay_on_the_real_clock(replays):
    """The browser's timestamps (CDP, the extension) are moved back by the replay's shift: t is on the run clock."""
    for run in replays["runs"]:
        m = manifest(run["dir"])
        assert abs(m["t0"] - run["began"]) < 60
        har = json.loads((run["dir"] / "http.har").read_text())["log"]["entries"]
        first = datetime.fromisoformat(har[0]["startedDateTime"].replace("Z", "+00:00")).timestamp()
        assert abs(first - run["began"]) < 60  # http.jsonl wall_time is the browser's; the HAR has the shift removed
        probe = [r for r in jsonl(run["dir"], "console.jsonl") if "clock probe" in r.get("text", "")]
        assert probe, jsonl(run["dir"], "console.jsonl")  # the page's uncaught exception, read from Chromium's log
        sent = {r["url"].rsplit("=", 1)[1]: r["started"] for r in jsonl(run["dir"], "http.jsonl")
                if r.get("method") == "POST" and "/report?who=" in r["url"]}
        # Thrown right after the page's report, 500 ms before the timer's: its own time (the log's lines carry no
        # year: read as the browser's, 400 days back), not the time the log was read at the end.
        assert sent["page"] - 1 < probe[0]["t"] < sent["timer"], (probe[0]["t"], sent)
        for rec in jsonl(run["dir"], "console.jsonl") + jsonl(run["dir"], "actions.jsonl"):
            assert 0 < rec["t"] < 300, rec


def _per_initiator(run_dir: Path) -> dict[tuple, list[tuple]]:
    """The replay's requests (RUN/replay.jsonl, in the order they were answered) split by initiator: a document
    (its frame's URL; a frame's own navigation belongs to it), a worker (its script URL; its script's fetch belongs
    to it) or the browser itself (the favicon)."""
    reqs = sorted((r for r in jsonl(run_dir, "http.jsonl") if r.get("type") == "request"), key=lambda r: r["started"])
    workers = {r["headers"].get("Referer") for r in reqs if r["target"] == "worker"}
    frames = {r["frame"]: r["url"] for r in reqs if r["resource_type"] == "Document"}

    def initiator(r: dict) -> tuple:
        if r["target"] == "worker" or r["url"] in workers:
            return ("worker", r["headers"].get("Referer") if r["target"] == "worker" else r["url"])
        if r["url"].endswith("/favicon.ico"):
            return ("browser",)
        return ("document", frames.get(r["frame"]))

    pending: dict[tuple, list[tuple]] = {}
    for r in reqs:
        pending.setdefault((r["method"], r["url"]), []).append(initiator(r))
    seqs: dict[tuple, list[tuple]] = {}
    for line in jsonl(run_dir, "replay.jsonl"):
        who = pending[(line["method"], line["url"])].pop(0)
        seqs.setdefault(who, []).append((line["method"], line["url"]))
    return seqs


def test_each_initiator_sends_the_same_sequence(replays):
    a, b = (_per_initiator(r["dir"]) for r in replays["runs"])
    assert set(a) == {("document", replays["start_url"]), ("document", replays["frame_url"]),
                      ("worker", replays["start_url"] + "worker.js"), ("browser",)}
    assert a == b  # per initiator the same order (across initiators, concurrent requests may swap: measured)
    assert len(a[("document", replays["start_url"])]) == 6


def test_without_the_shim_the_replay_says_what_is_missing(tmp_path):
    from clawrec.replay_env import ReplayEnv

    env = ReplayEnv(time.time() - DAY, 7, shim=None)
    assert env.env() == {} and env.flags() == [] and env.shift == 0.0
    assert env.facts()["crypto_seed"] is None and "make setup" in env.facts()["missing"]
    shimmed = ReplayEnv(time.time() - DAY, 7, shim=tmp_path / "x.so")
    assert shimmed.env()["CLAWREC_CLOCK_OFFSET_NS"].startswith("-864") and shimmed.shift == pytest.approx(-DAY, abs=5)


def test_one_disable_features_flag_reaches_chromium():
    """Chromium reads only the last --disable-features: the launcher merges them (the replay's and BASE_FLAGS')."""
    from recorder.browser import merge_disabled_features

    got = merge_disabled_features(["--a", "--disable-features=X,Y", "--b", "--disable-features=Y,Z"])
    assert got == ["--a", "--disable-features=X,Y,Z", "--b"]
    assert merge_disabled_features(["--disable-features=X"]) == ["--disable-features=X"]
