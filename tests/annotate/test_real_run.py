"""A real recorded run (the committed travel reference, recorded by `clawrec run` on the demo site) annotated into a
spec; the spec validates, and replaying the run under that spec catches the same booking before the site sees it."""

from __future__ import annotations

import json
import time
from pathlib import Path

import yaml

from clawrec.cli import main
from tests.pipeline.helpers import REPO, jsonl, manifest, run_cli

REFERENCE = REPO / "runs" / "reference" / "travel-flight-oneway"


def test_annotated_reference_catches_the_same_booking_on_replay(sites, tmp_path, capsys, monkeypatch):
    spec = tmp_path / "specs" / "travel-annotated.yaml"
    assert main(["annotate", str(REFERENCE), "--out", str(spec), "--equals", "trip_type,cabin"]) == 0
    out, _err = capsys.readouterr()
    assert out.splitlines()[0].split()[:3] == ["1", "POST", sites_url(REFERENCE) + "api/bookings"]
    data = yaml.safe_load(spec.read_text())
    assert data["intercept"][0]["url"] == "{sites.travel}api/bookings"
    assert data["intercept"][0]["equals"] == {"trip_type": "one_way", "cabin": "economy"}
    assert data["expect"]["flight_id"] == "SK344" and data["start_url"] == "{sites.travel}"
    assert main(["validate", str(spec)]) == 0
    capsys.readouterr()

    monkeypatch.setenv("CLAWREC_SITES", json.dumps(sites.urls))
    start = time.time()
    code, out, err = run_cli([str(spec), "--agent", "replay", "--from", str(REFERENCE), "--headless", "--no-judge",
                              "--runs-dir", str(tmp_path / "runs")], capsys)
    assert code == 0, err
    run_dir = Path(out[-1])
    assert manifest(run_dir)["status"] == "intercepted"
    caught = jsonl(run_dir, "interceptions.jsonl")
    ref = jsonl(REFERENCE, "interceptions.jsonl")
    assert len(caught) == 1 and caught[0]["url"] == sites.urls["travel"] + "api/bookings"
    assert caught[0]["body"] == ref[0]["body"]
    port = int(sites.urls["travel"].rstrip("/").rsplit(":", 1)[1])
    seen = [r for r in sites.records() if r["t"] >= start and r.get("port") == port]
    assert any(r["path"] == "/" for r in seen)
    assert not [r for r in seen if r["path"] == "/api/bookings" and r["method"] == "POST"]


def sites_url(run: Path) -> str:
    return json.loads((run / "manifest.json").read_text())["sites"]["travel"]
