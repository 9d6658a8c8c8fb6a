"""Failures are told apart: a wedged run is killed at its deadline (infrastructure failure; its manifest is then
finalized, status `interrupted`), a crashing agent is an outcome (agent_error, judged FAIL), a judge answering HTTP
500 gives judge_inconclusive (never FAIL), and `clawrec bench DIR --rejudge` fixes it once the judge answers."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.bench.helpers import DEMO, FAST, REPO, agent_cmd, bench, bench_argv, procs, slot_dirs
from tests.evaluator.anthropic_server import ScriptedAnthropic
from tests.evaluator.judge_script import flaky, good_judge


def _rows(out):
    return {r["trial"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}


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

    with ScriptedAnthropic(good_judge) as up:
        again = bench(str(out), "--rejudge", "--quiet", env={**env, "ANTHROPIC_BASE_URL": up.base_url})
    assert again.returncode == 0, again.stderr[-3000:]
    rows = _rows(out)
    assert rows[1]["verdict"] == "FAIL" and rows[2]["verdict"] == "PASS"
    assert not (out / rows[2]["run_dir"] / "judge_error.json").exists()
    assert json.loads((out / rows[2]["run_dir"] / "verdict.json").read_text())["judge"] == "llm"
    assert len(slot_dirs(out)) == 2 and not list((out / "runs").glob("*/*/*.attempt-*"))  # judged, not re-run


def test_a_wedged_run_is_killed_at_its_deadline(wedged):
    out, proc = wedged
    _, stderr = proc.communicate(timeout=400)
    assert proc.returncode == 1, stderr[-3000:]
    assert stderr.strip().splitlines()[-1].startswith("clawrec: 1 run(s) ended in an infrastructure failure")
    hang = _rows(out)[1]
    assert hang["outcome"] == "infra" and hang["infra"] and hang["stop_reason"].startswith("deadline: killed after 25 s")
    m = json.loads((out / hang["run_dir"] / "manifest.json").read_text())  # killed, then finalized by the bench
    assert m["status"] == "interrupted" and "finalized by `clawrec bench`" in m["stop_reason"], m
    assert not procs(str(out / hang["run_dir"]))
    s = json.loads((out / "summary.json").read_text())
    assert s["rows"][0]["columns"]["overall"]["stage1"]["n"] == 0 and s["totals"]["infra"] == 1
    assert any("infrastructure" in n for n in s["notes"])
