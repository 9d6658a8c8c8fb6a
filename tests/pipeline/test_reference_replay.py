"""The committed reference run of the travel demo task still replays: its spec catches the same terminal request
with the same payload, the site never receives it, and the payload judge passes the replay (what `make demo` does)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from tests.pipeline.helpers import REPO, jsonl, manifest, run_cli

REFERENCE = REPO / "runs" / "reference" / "travel-flight-oneway"
SPEC = REPO / "specs" / "demo" / "travel-flight-oneway.yaml"


def test_reference_replay_catches_the_same_payload(sites, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CLAWREC_SITES", json.dumps(sites.urls))
    start = time.time()
    code, out, err = run_cli([str(SPEC), "--agent", "replay", "--from", str(REFERENCE), "--headless",
                              "--runs-dir", str(tmp_path)], capsys)
    assert code == 0, err
    run_dir = Path(out[-1])
    m = manifest(run_dir)
    assert m["status"] == "intercepted", m["stop_reason"]
    ref, got = jsonl(REFERENCE, "interceptions.jsonl"), jsonl(run_dir, "interceptions.jsonl")
    assert len(got) == 1 and got[0]["method"] == ref[0]["method"] == "POST"
    assert got[0]["url"] == sites.urls["travel"] + "api/bookings"
    assert got[0]["body"] == ref[0]["body"]
    mine = [r for r in sites.records() if r["t"] >= start and r.get("port") == int(sites.urls["travel"].split(":")[2]
                                                                                     .rstrip("/"))]
    assert any(r["path"] == "/" for r in mine)  # the site saw the run …
    assert not [r for r in mine if r["path"] == "/api/bookings" and r["method"] == "POST"]  # … but not the booking
    verdict = json.loads((run_dir / "verdict.json").read_text())
    assert verdict["verdict"] == "PASS" and verdict["judge"] == "payload"
    assert out[-2].startswith("verdict: PASS")
