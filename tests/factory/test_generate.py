"""`clawrec factory generate` and `serve`: deterministic output (same seed → byte-identical OUT), every channel and
family, specs that validate, and a served site whose log says what reached it (requests and truth events)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from factory.model import CHANNELS
from factory.families import FAMILIES
from taskspec.load import load_spec

CLAWREC = [sys.executable, "-m", "clawrec.cli"]


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _generate(out: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(CLAWREC + ["factory", "generate", str(out), *args], capture_output=True, text=True,
                          timeout=120)


def test_same_seed_gives_byte_identical_out(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    for out, seed in ((a, "11"), (b, "11"), (c, "12")):
        proc = _generate(out, "--seed", seed, "--count", str(len(CHANNELS)))
        assert proc.returncode == 0, proc.stderr
    ta, tb, tc = _tree(a), _tree(b), _tree(c)
    assert ta == tb and len(ta) > 6 * len(CHANNELS)
    assert ta != tc
    index = json.loads((a / "index.json").read_text())
    assert sorted(s["channel"] for s in index["sites"]) == sorted(CHANNELS)  # every channel once
    for site in index["sites"]:
        spec = load_spec(a / site["spec"])
        assert spec.id == site["id"] and spec.intercept and spec.expect
        assert set(site["axes"]) >= {"theme", "layout", "steps", "modal", "cookie_banner", "aria", "latency_ms",
                                     "failures", "widgets"}
        assert {"autosave_draft", "analytics_beacon", "validation_ping", "dry_run_preview", "csrf_refresh",
                "transient_500_retry"} <= set(site["distractors"])
        assert (a / site["solver"]).is_file() and (a / "sites" / site["id"] / "index.html").is_file()


def test_families_and_channels_options(tmp_path: Path) -> None:
    proc = _generate(tmp_path / "o", "--seed", "3", "--count", "16", "--families", "booking,job",
                     "--channels", "popup,websocket")
    assert proc.returncode == 0, proc.stderr
    sites = json.loads((tmp_path / "o" / "index.json").read_text())["sites"]
    assert {s["family"] for s in sites} == {"booking", "job"} and {s["channel"] for s in sites} == {"popup",
                                                                                                 "websocket"}
    bad = _generate(tmp_path / "p", "--seed", "3", "--count", "2", "--families", "bakery")
    assert bad.returncode == 2 and bad.stderr.strip().splitlines() == [
        f"clawrec: --families: unknown family 'bakery' (known: {', '.join(FAMILIES)})"]
    assert not (tmp_path / "p").exists()


def test_serve_prints_urls_and_logs_truth_events(tmp_path: Path) -> None:
    out, log = tmp_path / "o", tmp_path / "log.jsonl"
    assert _generate(out, "--seed", "5", "--count", "2", "--channels", "fetch_json").returncode == 0
    proc = subprocess.Popen(CLAWREC + ["factory", "serve", str(out), "--log", str(log)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        urls = json.loads(proc.stdout.readline())
        sites = json.loads((out / "index.json").read_text())["sites"]
        assert set(urls) == {s["id"] for s in sites}
        site = sites[0]
        base = urls[site["id"]]
        page = urllib.request.urlopen(base, timeout=10).read().decode()
        assert "window.CONFIG=" in page and "window.SITE=" in page
        try:  # the truth is never served
            urllib.request.urlopen(base + "server.json", timeout=10)
            raise AssertionError("server.json was served")
        except urllib.error.HTTPError as exc:
            assert exc.code == 404

        def post(path: str, body: dict) -> int:
            req = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                         headers={"Content-Type": "application/json"})
            try:
                return urllib.request.urlopen(req, timeout=10).status
            except urllib.error.HTTPError as exc:
                return exc.code

        assert post("api/drafts", {"step": 1, "attempt": 1}) == 500  # the transient failure
        assert post("api/drafts", {"step": 1, "attempt": 2}) == 200
        path = site["terminal"]["path"].lstrip("/")
        assert post(path, {**site["oracle"], "dry_run": True}) == 200
        assert post(path, site["oracle"]) == 200
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
    assert proc.returncode == 0
    records = [json.loads(x) for x in log.read_text().splitlines()]
    events = [(r["event"], r["name"]) for r in records if r.get("factory_site") == site["id"]]
    assert ("subgoal", "opened") in events and ("distractor", "transient_500_retry") in events
    assert ("distractor", "dry_run_preview") in events and ("subgoal", "previewed") in events
    assert events.count(("terminal", "terminal")) == 1
    assert any(r.get("path") == "/api/drafts" and r.get("method") == "POST" for r in records)
