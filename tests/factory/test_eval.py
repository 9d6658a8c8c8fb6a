"""`clawrec factory eval` end to end on a generation of one site per kind of channel machinery (a document form, a
socket, a service worker, a cross-origin iframe, a multi-request session; every channel is in `make bench
BENCH=factory`, and each channel's interception in tests/interceptor): each site through the ordinary run pipeline (solver, perturbed solver, null, random, annotate + a second solver run), real Chromium
headless, the generated sites' own log as the truth. Then `clawrec judge --judge progress` on its runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

CHANNELS = ("form_post", "websocket", "service_worker", "payment_iframe", "session_steps")

CLAWREC = [sys.executable, "-m", "clawrec.cli"]


@pytest.mark.timeout(900)  # ~25 runs of real Chromium: ~1 min idle at -j 2, more under the suite's load
def test_eval_one_site_per_channel_kind(tmp_path: Path) -> None:
    out = tmp_path / "gen"
    gen = subprocess.run(CLAWREC + ["factory", "generate", str(out), "--seed", "24", "--count", str(len(CHANNELS)),
                         "--channels", ",".join(CHANNELS)],
                         capture_output=True, text=True, timeout=120)
    assert gen.returncode == 0, gen.stderr
    proc = subprocess.run(CLAWREC + ["factory", "eval", str(out), "-j", "2"], capture_output=True, text=True,
                          timeout=600)
    report = json.loads((out / "eval.json").read_text())
    summary = report["summary"]
    assert proc.returncode == 0 and not summary["failing"], (out / "eval.md").read_text()
    m = summary["overall"]
    assert m["sites"] == len(CHANNELS) and m["recall"] == 1.0 and m["false_positives"] == 0 and m["leaks"] == 0
    assert m["judge_accuracy"] == 1.0 and m["annotate_success"] == 1.0
    assert set(summary["per_channel"]) == set(CHANNELS)
    assert m["progress"]["solver"] == 1.0 and m["progress"]["null"] < 0.5
    md = (out / "eval.md").read_text()
    assert "## Per family" in md and "## Per channel" in md and f"| all | {len(CHANNELS)} | 100.0 % | 0 | 0 |" in md

    # every solver run caught exactly once, its payload the oracle's; the server saw no terminal request
    site = report["sites"][0]
    solver = Path(site["runs"]["solver"]["dir"])
    caught = [json.loads(x) for x in (solver / "interceptions.jsonl").read_text().splitlines()]
    assert len(caught) == 1 and caught[0]["action"] == "blocked"
    log = [json.loads(x) for x in (out / "runs" / "sites.jsonl").read_text().splitlines()]
    assert not [r for r in log if r.get("event") == "terminal"]

    # the progress judge: full credit for the solver, partial for the null agent
    judged = subprocess.run(CLAWREC + ["judge", str(solver), "--judge", "progress"], capture_output=True, text=True,
                            timeout=120)
    assert judged.returncode == 0, judged.stderr
    verdict = json.loads((solver / "verdict.json").read_text())
    assert verdict["judge"] == "progress" and verdict["verdict"] == "PASS" and verdict["progress"] == 1.0
    null = Path(site["runs"]["null"]["dir"])
    subprocess.run(CLAWREC + ["judge", str(null), "--judge", "progress"], capture_output=True, timeout=120)
    verdict = json.loads((null / "verdict.json").read_text())
    assert verdict["verdict"] == "FAIL" and 0 < verdict["progress"] < 1

    # the bench summary's mean progress reads the same files
    from clawrec.bench.summary import _progress

    rows = [{"run_dir": f"{s['id']}/solver"} for s in report["sites"]]
    assert _progress(rows, out / "runs") == {"mean": 1.0, "n": len(CHANNELS)}
