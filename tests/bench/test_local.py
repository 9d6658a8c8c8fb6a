"""A bench of demo tasks × command/replay agents × 2 trials at -j 2: every run is an ordinary run directory, and
the table in summary.* is what the run directories say (recomputed here independently)."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

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
    assert s["best"]["stage2"]["travel"] == ["replay"] and s["best"]["stage2"]["overall"] == []  # a tie: no best
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
    for r in map(json.loads, (out / "results.jsonl").read_text().splitlines()):  # steps: what the viewer lists
        html = (out / r["run_dir"] / "report.html").read_text()
        listed = html.count("<details class=step ")
        assert r["steps"] == listed and (listed > 3 or r["trial"] == 2), (r["run_dir"], r["steps"], listed)
    assert not (out / ".bench.lock").exists()  # removed when the bench ended
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page) and "@import" not in page  # self-contained


def test_overview_in_chromium_has_the_plots_and_tables_people_read(demo_bench):
    """overview.html in headless Chromium: one bar per agent × category run (overall, travel, social), one point per
    agent in each scatter, tables rendered (no markdown left), the runs table sorts and filters. Set
    CLAWREC_BENCH_SHOTS=DIR to save the screenshot committed as docs/bench/overview.png."""
    from playwright.sync_api import sync_playwright

    from recorder.browser import launch_browser

    out, _ = demo_bench
    assert bench("report", str(out), "--html").returncode == 0
    browser = launch_browser(headless=True)
    try:
        with sync_playwright() as p:
            cdp = p.chromium.connect_over_cdp(browser.http_url)
            page = cdp.contexts[0].new_page()
            fetched: list[str] = []
            page.on("request", lambda r: fetched.append(r.url))
            page.set_viewport_size({"width": 1400, "height": 900})
            page.goto((out / "overview.html").as_uri())
            bars = page.eval_on_selector_all("svg[data-kind=bar] rect.bar",
                                             "rs => rs.map(r => r.dataset.agent + '/' + r.dataset.category)")
            assert sorted(bars) == sorted(f"{a}/{c}" for a in ("command", "replay")
                                          for c in ("overall", "travel", "social")), bars
            assert page.locator("svg[data-kind=bar] path.se").count() >= 4  # SE bars where SE > 0
            for plot in page.locator("svg[data-kind=scatter]").all():
                assert sorted(plot.locator("circle.pt").evaluate_all("cs => cs.map(c => c.dataset.agent)")) == \
                    ["command", "replay"]
            assert page.locator("svg[data-kind=scatter]").count() == 2
            text = page.locator("body").inner_text()
            assert "**" not in text and "|---|" not in text and "| agent |" not in text
            # the unique bests only (command on social, replay on travel; the overall tie is nobody's)
            assert page.locator("table.stage b").all_inner_texts() == ["50.0 ± 35.4 (n=2)", "100.0 ± 0.0 (n=2)"] * 2
            if os.environ.get("CLAWREC_BENCH_SHOTS"):
                page.screenshot(path=str(Path(os.environ["CLAWREC_BENCH_SHOTS"]) / "overview.png"), full_page=True)
            page.locator("#filter").fill("travel replay")
            assert page.locator("#runs tbody tr:visible").count() == 2
            page.locator("#filter").fill("")
            page.locator("#runs th", has_text="duration").click()
            durations = [float(v) for v in page.locator("#runs tbody td:nth-child(10)").evaluate_all(
                "ts => ts.map(t => t.dataset.v)")]
            assert durations == sorted(durations) and len(durations) == 8
            assert all(u.startswith("file://") for u in fetched), fetched  # nothing from the network
            cdp.close()
    finally:
        browser.close()


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
                      "runs/travel-flight-oneway/command/trial-2,FAIL,idle\n"
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
        assert got["disagreements"] == [{"run": "runs/social-status-update/replay/trial-1", "label": "PASS",
                                         "judge": "payload", "verdict": "FAIL"}]  # the run to read, named
        text = subprocess.run([sys.executable, "-m", "clawrec.cli", "judge-agreement", str(labels), str(out)],
                              capture_output=True, text=True, cwd=REPO, timeout=60).stdout
        assert "runs/social-status-update/replay/trial-1  label PASS  payload: FAIL" in text
        assert bench("report", str(out)).returncode == 0  # labels.csv in DIR: a section of the report
        assert "## Judge agreement with labels.csv" in (out / "summary.md").read_text()
        assert json.loads((out / "summary.json").read_text())["judge_agreement"]["pairs"][0]["n"] == 3
        ok = "runs/travel-flight-oneway/command/trial-1"
        for rows, line in ((f"{ok},maybe\n", "2: label: 'maybe' is not PASS or FAIL"),
                           (f"{ok},pass\n", "2: label: 'pass' is not PASS or FAIL (labels are upper case)"),
                           (f"{ok},PASS\nruns/travel-flight-oneway/comand/trial-2,FAIL\n",
                            f"3: run: 'runs/travel-flight-oneway/comand/trial-2' is not a run directory under {out}"
                            " (no manifest.json)"),
                           (f"{ok},PASS\n{ok},FAIL\n", f"3: run: '{ok}' is labelled again (first on line 2); one "
                            "label per run")):
            labels.write_text("run,label\n" + rows)
            bad = subprocess.run([sys.executable, "-m", "clawrec.cli", "judge-agreement", str(labels), str(out)],
                                 capture_output=True, text=True, cwd=REPO, timeout=60)
            assert bad.returncode == 2 and bad.stderr.strip() == f"clawrec: {labels}:{line}", bad.stderr
    finally:
        labels.unlink()
        bench("report", str(out))
