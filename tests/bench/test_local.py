"""A bench of demo tasks × command/replay agents × 2 trials at -j 2: every run is an ordinary run directory, and
the table in summary.* is what the run directories say (recomputed here independently)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

from tests.bench.helpers import REPO, bench, check_rates, recompute, slot_dirs, summary_cells


def test_bench_completes_and_the_table_matches_the_run_dirs(demo_bench):
    out, proc = demo_bench
    dirs = slot_dirs(out)
    assert len(dirs) == 2 * 2 * 2
    for d in dirs:  # ordinary run directories: the layers, a final manifest, a verdict
        m = json.loads((d / "manifest.json").read_text())
        assert m["status"] in ("intercepted", "ok") and (d / "http.jsonl").exists() and (d / "verdict.json").exists()
    # each run had its own browser and sites: distinct site ports in every manifest
    ports = {json.loads((d / "manifest.json").read_text())["sites"]["travel"] for d in dirs}
    assert len(ports) == len(dirs)
    cells = recompute(out)
    assert summary_cells(out) == cells
    check_rates(out)
    # what the agents did: command drives on trial 1 (both tasks PASS), idles on trial 2; replay books the flight
    assert cells["command"]["overall"] == {"stage1": (2, 4), "stage2": (2, 4)}
    assert cells["replay"]["travel"] == {"stage1": (2, 2), "stage2": (2, 2)}
    assert cells["replay"]["social"] == {"stage1": (0, 2), "stage2": (0, 2)}
    s = json.loads((out / "summary.json").read_text())
    rows = {r["label"]: r for r in s["rows"]}
    assert rows["command"]["pass_k"]["pass_at_k"] == 1.0 and rows["command"]["pass_k"]["pass_hat_k"] == 0.0
    assert rows["replay"]["pass_k"]["pass_at_k"] == 0.5 and rows["replay"]["pass_k"]["pass_hat_k"] == 0.5
    assert s["best"]["stage2"]["travel"] == ["replay"] and s["best"]["stage2"]["overall"] == ["command", "replay"]
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(results) == 8 and {r["outcome"] for r in results} == {"pass", "fail"}
    assert all(r["duration"] > 0 and (out / r["run_dir"] / "manifest.json").exists() for r in results)
    md = (out / "summary.md").read_text()
    assert "Stage 2" in md and "Stage 1" in md and "| replay |" in md and "**" in md
    assert proc.stdout.strip().splitlines()[-1] == str(out)
    with open(out / "summary.csv") as fh:
        table = {r["label"]: r for r in csv.DictReader(fh)}
    assert float(table["replay"]["stage2_travel"]) == 1.0 and table["replay"]["stage2_social_n"] == "2"


def test_report_rerenders_the_same_table_and_an_overview(demo_bench, tmp_path):
    out, _ = demo_bench
    before = json.loads((out / "summary.json").read_text())
    (out / "summary.json").unlink()
    proc = bench("report", str(out), "--html")
    assert proc.returncode == 0, proc.stderr
    assert json.loads((out / "summary.json").read_text())["rows"] == before["rows"]
    page = (out / "overview.html").read_text()
    assert page.count('">report</a>') == 8
    assert all((d / "report.html").exists() for d in slot_dirs(out))


def test_rerunning_the_finished_bench_runs_nothing(demo_bench):
    out, _ = demo_bench
    mtimes = {d: (d / "manifest.json").stat().st_mtime_ns for d in slot_dirs(out)}
    proc = bench(str(out), "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "8 already final, 0 to do" in proc.stderr
    assert {d: (d / "manifest.json").stat().st_mtime_ns for d in slot_dirs(out)} == mtimes


def test_judge_agreement_against_human_labels(demo_bench):
    out, _ = demo_bench
    labels = out / "labels.csv"
    labels.write_text("run,label,why\n"
                      "runs/travel-flight-oneway/command/trial-1,PASS,booked\n"
                      "runs/travel-flight-oneway/command/trial-2,fail,idle\n"
                      "runs/social-status-update/replay/trial-1,PASS,a person disagrees with the judge\n")
    try:
        proc = subprocess.run([sys.executable, "-m", "clawrec.cli", "judge-agreement", str(labels), str(out), "--json"],
                              capture_output=True, text=True, cwd=REPO, timeout=60)
        assert proc.returncode == 0, proc.stderr
        got = json.loads(proc.stdout)
        (pair,) = got["pairs"]
        assert (pair["judge"], pair["against"], pair["n"]) == ("payload", "human", 3)
        assert pair["agreement"] == 2 / 3 and pair["precision"] == 1.0 and pair["recall"] == 0.5
        assert pair["confusion"] == {"tp": 1, "fp": 0, "fn": 1, "tn": 1}
        assert bench("report", str(out)).returncode == 0  # labels.csv in DIR: a section of the report
        assert "## Judge agreement with labels.csv" in (out / "summary.md").read_text()
        assert json.loads((out / "summary.json").read_text())["judge_agreement"]["pairs"][0]["n"] == 3
        labels.write_text("run,label\nruns/x,maybe\n")
        bad = subprocess.run([sys.executable, "-m", "clawrec.cli", "judge-agreement", str(labels), str(out)],
                             capture_output=True, text=True, cwd=REPO, timeout=60)
        assert bad.returncode == 2 and bad.stderr.strip() == f"clawrec: {labels}:2: label: 'maybe' is not PASS or FAIL"
    finally:
        labels.unlink()
        bench("report", str(out))
