"""Failures are told apart: a wedged run is killed at its deadline (infrastructure failure; its manifest is then
finalized, status `interrupted`), a crashing agent is an outcome (agent_error, judged FAIL), a judge answering HTTP
500 gives judge_inconclusive (never FAIL), and `clawrec bench DIR --rejudge` fixes it once the judge answers. Each
judged run is diagnosed (RUN/diagnosis.json): the summary's failure-category table matches a count made here from
each run's verdict.json and diagnosis.json."""

from __future__ import annotations

import csv
import json
import subprocess
from collections import Counter

import pytest

from tests.bench.helpers import AGENT, DEMO, FAST, REPO, agent_cmd, bench, bench_argv, procs, read, slot_dirs
from tests.evaluator.anthropic_server import ScriptedAnthropic
from tests.evaluator.judge_script import flaky, good_judge


def _rows(out):
    return {r["trial"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}


def recount_failures(root):
    """label → (FAIL runs per diagnosis category, FAIL runs without one, self-report gaps among judged runs), from
    each run's verdict.json and diagnosis.json only."""
    got = {}
    for d in slot_dirs(root):
        cats, other, gaps = got.setdefault(d.parts[-2], (Counter(), [0], [0]))
        verdict, diag = (read(d / "verdict.json") or {}).get("verdict"), read(d / "diagnosis.json") or {}
        if verdict == "FAIL":
            if diag.get("category"):
                cats[diag["category"]] += 1
            else:
                other[0] += 1
        gaps[0] += verdict in ("PASS", "FAIL") and bool(diag.get("self_report_gap"))
    return {label: (dict(c), o[0], g[0]) for label, (c, o, g) in got.items()}


def summary_failures(root):
    """The same three counts as summary.json, summary.csv and summary.md give them."""
    s = json.loads((root / "summary.json").read_text())
    taxonomy = list(s["failure_categories"])
    from_json = {r["label"]: ({c: n for c, n in r["failures"]["categories"].items() if n},
                              r["failures"]["unclassified"], r["failures"]["self_report_gaps"]) for r in s["rows"]}
    from_csv = {r["label"]: ({c: int(r[f"fail_{c}"]) for c in taxonomy if int(r[f"fail_{c}"])},
                             int(r["fail_unclassified"]), int(r["self_report_gaps"]))
                for r in csv.DictReader((root / "summary.csv").read_text().splitlines())}
    md = (root / "summary.md").read_text().split("## Failure categories", 1)[1].split("\n\n")[1].splitlines()
    assert md[0] == "| agent | " + " | ".join(s["failure_categories"].values()) + " | unclassified | self-report gaps |"
    from_md = {}
    for line in md[2:]:
        label, *cells = [c.strip() for c in line.strip("|").split("|")]
        from_md[label] = ({c: int(n) for c, n in zip(taxonomy, cells) if int(n)}, int(cells[-2]), int(cells[-1]))
    assert from_json == from_csv == from_md
    return from_json


@pytest.fixture(scope="module")
def wedged(tmp_path_factory):
    """The wedged bench, started in the background when this module starts: its run sits stopped (no CPU) until the
    deadline, so that wait overlaps the other bench of this module instead of adding to the suite's time (and the
    deadline can be wide: a loaded machine's slow start must not end the run before its manifest is written)."""
    out = tmp_path_factory.mktemp("wedged") / "bench"
    proc = subprocess.Popen(bench_argv(str(DEMO), "--ids", "travel-flight-oneway", "--agent", "command",
                                       "--agent-cmd", agent_cmd("hang"), "--time-limit", "10", "--deadline-margin", "15",
                                       "--retries", "0", "--out", str(out), *FAST),
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    yield out, proc
    if proc.poll() is None:
        proc.kill()
        proc.communicate()


def test_crash_is_an_outcome_and_a_judge_outage_is_inconclusive_until_rejudged(wedged, tmp_path):
    # `wedged` only starts the wedged bench now (checked by the next test), so both benches run at once
    out = tmp_path / "bench"
    args = [str(DEMO), "--ids", "travel-flight-oneway", "--agent", "command", "--agent-cmd", agent_cmd("crash,drive"),
            "--trials", "2", "-j", "2", "--judge", "llm", "--out", str(out), *FAST]
    env = {"ANTHROPIC_API_KEY": "test-key", "CLAWREC_JUDGE_CACHE": str(tmp_path / "cache")}
    with ScriptedAnthropic(flaky([500] * 1000)) as down:
        proc = bench(*args, env={**env, "ANTHROPIC_BASE_URL": down.base_url})
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = _rows(out)
    crash, drive = rows[1], rows[2]
    assert crash["status"] == "agent_error" and "exited 3" in crash["stop_reason"] and crash["attempts"] == 1
    assert drive["status"] == "intercepted" and drive["intercepted"]
    for r in (crash, drive):  # the judge could not answer: inconclusive, not FAIL
        assert r["verdict"] == r["outcome"] == "judge_inconclusive"
        assert "HTTP 500" in r["judge_error"] and not (out / r["run_dir"] / "verdict.json").exists()
    assert len(down.requests) >= 2 and all(r["status"] == 500 for r in down.requests)
    s = json.loads((out / "summary.json").read_text())
    assert s["rows"][0]["columns"]["overall"]["stage2"]["n"] == 0
    assert s["rows"][0]["columns"]["overall"]["stage1"] == {"hits": 1, "n": 2, "rate": 0.5, "se": 0.125 ** 0.5}
    assert any("inconclusive" in n for n in s["notes"])
    # diagnosed though the judge was down (the diagnosis needs no LLM); inconclusive runs are not counted as failures
    for r, category in ((crash, "agent_crash"), (drive, None)):
        diag = json.loads((out / r["run_dir"] / "diagnosis.json").read_text())
        assert r["failure_category"] == diag["category"] == category and r["self_report_gap"] is False
    assert summary_failures(out) == recount_failures(out) == {"command": ({}, 0, 0)}
    for r in (crash, drive):  # --rejudge writes them again
        (out / r["run_dir"] / "diagnosis.json").unlink()

    with ScriptedAnthropic(good_judge) as up:
        again = bench(str(out), "--rejudge", "--quiet", env={**env, "ANTHROPIC_BASE_URL": up.base_url})
    assert again.returncode == 0, again.stderr[-3000:]
    rows = _rows(out)
    assert rows[1]["verdict"] == "FAIL" and rows[2]["verdict"] == "PASS"
    assert not (out / rows[2]["run_dir"] / "judge_error.json").exists()
    assert json.loads((out / rows[2]["run_dir"] / "verdict.json").read_text())["judge"] == "llm"
    assert len(slot_dirs(out)) == 2 and not list((out / "runs").glob("*/*/*.attempt-*"))  # judged, not re-run
    assert rows[1]["failure_category"] == "agent_crash" and rows[2]["failure_category"] is None
    assert summary_failures(out) == recount_failures(out) == {"command": ({"agent_crash": 1}, 0, 0)}
    (out / rows[1]["run_dir"] / "diagnosis.json").unlink()  # e.g. judged by a bench from before the categories
    (out / "summary.json").unlink()
    report = bench("report", str(out))
    assert report.returncode == 0, report.stderr[-3000:]
    assert json.loads((out / rows[1]["run_dir"] / "diagnosis.json").read_text())["category"] == "agent_crash"
    assert summary_failures(out) == recount_failures(out) == {"command": ({"agent_crash": 1}, 0, 0)}


def test_a_wedged_run_is_killed_at_its_deadline(wedged):
    out, proc = wedged
    _, stderr = proc.communicate(timeout=400)
    assert proc.returncode == 1, stderr[-3000:]
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("clawrec: 1 run(s) ended in an infrastructure failure"), stderr[-3000:]
    assert last.endswith("; `--retries 1` runs them again")  # the flag that re-runs it, named
    assert "--retries 0 spent, `--retries 1` runs them again" in stderr
    hang = _rows(out)[1]
    assert hang["outcome"] == "infra" and hang["infra"] and hang["stop_reason"].startswith("deadline: killed after 25 s")
    m = json.loads((out / hang["run_dir"] / "manifest.json").read_text())  # killed, then finalized by the bench
    assert m["status"] == "interrupted" and "finalized by `clawrec bench`" in m["stop_reason"], m
    assert not procs(str(out / hang["run_dir"])) and not procs(f"{AGENT} hang")  # nor its agent (own group)
    s = json.loads((out / "summary.json").read_text())
    assert s["rows"][0]["columns"]["overall"]["stage1"]["n"] == 0 and s["totals"]["infra"] == 1
    assert any("infrastructure" in n for n in s["notes"])
