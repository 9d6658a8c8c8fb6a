"""The bench's arithmetic and small parts without a browser: pass@k / pass^k, best-per-column, agreement and κ,
labels.csv errors, plan pinning, prices."""

from __future__ import annotations

import math

import pytest

from clawrec.agents.usage import price, priced
from clawrec.bench.agreement import compare, read_labels
from clawrec.bench.plan import AgentEntry, Plan, SpecEntry, Slot, agent_entries, plan_changes
from clawrec.bench.runner import Bench, BenchOptions
from clawrec.bench.state import SlotState
from clawrec.bench.summary import failures, pass_k, render_md, summarize
from clawrec.errors import UsageError


def _row(task, label, outcome, cat="travel", intercepted=True, failure="wrong_value", gap=False):
    return {"task": task, "label": label, "outcome": outcome, "category": cat, "intercepted": intercepted,
            "duration": 1.0, "cost_usd": 0.5, "judge_cost_usd": None,
            "failure_category": failure if outcome == "fail" else None, "self_report_gap": gap}


def test_pass_at_k_and_pass_hat_k_unbiased_estimators():
    rows = [_row("a", "x", "pass"), _row("a", "x", "fail"), _row("a", "x", "pass"),   # n=3 c=2
            _row("b", "x", "fail"), _row("b", "x", "fail"),                           # n=2 c=0
            _row("c", "x", "pass"), _row("c", "x", "infra")]                           # n=1: left out
    got = pass_k(rows, 2)
    assert got["tasks"] == 2 and got["tasks_left_out"] == 1
    assert math.isclose(got["pass_at_k"], ((1 - math.comb(1, 2) / math.comb(3, 2)) + 0) / 2)
    assert math.isclose(got["pass_hat_k"], (math.comb(2, 2) / math.comb(3, 2) + 0) / 2)


def test_summary_excludes_infra_and_inconclusive_and_marks_the_best():
    specs = [SpecEntry("a", "/a.yaml", "0" * 64, "travel", 60), SpecEntry("b", "/b.yaml", "1" * 64, "social", 60)]
    plan = Plan(specs=specs, agents=[AgentEntry("x"), AgentEntry("y", "m")], trials=1)
    rows = [_row("a", "x", "pass"), _row("b", "x", "infra", "social"),
            _row("a", "y:m", "fail"), _row("b", "y:m", "judge_inconclusive", "social")]
    s = summarize(plan, rows)
    x, y = s["rows"]
    assert x["columns"]["overall"]["stage2"] == {"hits": 1, "n": 1, "rate": 1.0, "se": 0.0}
    assert y["columns"]["overall"]["stage1"]["n"] == 2 and y["columns"]["overall"]["stage2"]["n"] == 1
    assert s["best"]["stage2"]["overall"] == ["x"] and s["best"]["stage1"]["travel"] == []  # a tie: nobody's best
    assert x["cost_usd"] == y["cost_usd"] == 1.0  # what was spent, failed runs included
    assert len(s["notes"]) == 2 and x["pass_k"] is None
    zero = summarize(plan, [_row("a", "x", "fail", intercepted=False), _row("a", "y:m", "fail", intercepted=False)])
    assert not any(zero["best"][st][c] for st in zero["best"] for c in zero["best"][st])
    assert "**" not in render_md(zero) and "Bold" not in render_md(zero)  # every 0.0 cell is no best


def test_failure_categories_count_fail_runs_and_gaps_among_judged_runs():
    rows = [_row("a", "x", "fail", failure="never_submitted", gap=True), _row("b", "x", "fail", failure=None),
            _row("c", "x", "pass", gap=True), _row("d", "x", "judge_inconclusive", gap=True), _row("e", "x", "infra")]
    f = failures(rows)
    assert {c: n for c, n in f["categories"].items() if n} == {"never_submitted": 1}
    assert (f["failed"], f["unclassified"], f["self_report_gaps"]) == (2, 1, 2)
    plan = Plan(specs=[SpecEntry(t, f"/{t}.yaml", "0" * 64, "travel", 60) for t in "abcde"],
                agents=[AgentEntry("x")], trials=1)
    md = render_md(summarize(plan, rows))
    assert "| x | 1 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 1 | 2 |" in md and "1 FAIL run(s) have no failure" in md


def test_cohens_kappa_and_precision_recall():
    judge = [True, True, False, False, True]
    human = [True, False, False, False, True]
    got = compare(judge, human)
    po, pe = 4 / 5, (3 / 5) * (2 / 5) + (2 / 5) * (3 / 5)
    assert math.isclose(got["kappa"], (po - pe) / (1 - pe)) and got["agreement"] == po
    assert got["precision"] == 2 / 3 and got["recall"] == 1.0


def test_labels_csv_errors_name_the_line(tmp_path):
    bad = tmp_path / "labels.csv"
    for name in ("a", "b"):
        (tmp_path / "runs" / name).mkdir(parents=True)
        (tmp_path / "runs" / name / "manifest.json").write_text("{}")
    bad.write_text("run,label\nruns/a,PASS\nruns/b,maybe\n")
    with pytest.raises(UsageError, match=r"labels.csv:3: label: 'maybe' is not PASS or FAIL"):
        read_labels(bad, tmp_path)
    bad.write_text("path,verdict\n")
    with pytest.raises(UsageError, match=r"labels.csv:1: header: needs the columns `run` and `label`"):
        read_labels(bad, tmp_path)


def test_plan_changes_name_what_changed():
    spec = SpecEntry("a", "/s/a.yaml", "0" * 64, "travel", 60)
    old = Plan(specs=[spec], agents=[AgentEntry("null")], trials=2)
    new = Plan(specs=[SpecEntry("a", "/s/a.yaml", "1" * 64, "travel", 60)], agents=[AgentEntry("null")], trials=3)
    changes = plan_changes(old, new)
    assert changes[0].startswith("spec /s/a.yaml changed since the bench was planned") and "trials differ" in changes[1]
    assert plan_changes(old, old) == []
    assert [a.label for a in agent_entries(("claude",), ("anthropic/a", "anthropic/b"))] == \
        ["claude:anthropic/a", "claude:anthropic/b"]
    with pytest.raises(UsageError):
        agent_entries(("a", "b", "c"), ("m1", "m2"))


def test_prices_longest_prefix_and_unknown_models():
    assert price("openai/gpt-5.4-mini") == (0.25, 2.0) and price("anthropic/claude-sonnet-4-5") == (3.0, 15.0)
    assert priced("nobody/model-x", 10, 10, 1)["cost_usd"] is None
    assert priced("claude-sonnet-4-5", 1_000_000, 0, 1, cache_read=1_000_000)["cost_usd"] == 3.3


def test_what_a_resume_does_with_each_slot(tmp_path):
    spec = SpecEntry("a", "/s/a.yaml", "1" * 64, "travel", 60)
    plan = Plan(specs=[spec], agents=[AgentEntry("x")], trials=1)
    slot = Slot(spec, AgentEntry("x"), 1)

    def st(kind, status=None, sha="1" * 64, failed=0, verdict=None, error=None):
        return SlotState(slot, tmp_path, kind, manifest={"status": status, "task": {"spec_sha256": sha}},
                         failed_attempts=failed, verdict=verdict, judge_error=error)

    def bench(**kw):
        return Bench(BenchOptions(root=tmp_path, plan=plan, **kw), executor=None, progress=None)  # type: ignore

    b = bench(retries=2)
    assert b._needs_run(st("todo")) and b._needs_run(st("infra", failed=1)) and not b._needs_run(st("infra", failed=2))
    assert bench(retries=0)._needs_run(st("stopped", "crashed", failed=5))  # a stop never spends --retries
    assert not b._needs_run(st("done", "agent_error")) and bench(rerun_failed=True)._needs_run(st("done", "agent_error"))
    assert not bench(rerun_failed=True)._needs_run(st("done", "timeout")) and not b._needs_run(st("bad_input"))
    assert b._needs_run(st("done", "ok", sha="0" * 64))  # re-planned: its spec changed since it ran
    assert b._needs_judging(st("done", "ok")) and not bench(no_judge=True)._needs_judging(st("done", "ok"))
    inconclusive = st("done", "ok", error={"judge": "payload", "error": "x"})
    assert not b._needs_judging(inconclusive) and bench(rejudge=True)._needs_judging(inconclusive)
    judged = st("done", "ok", verdict={"verdict": "FAIL", "judge": "llm"})
    assert not b._needs_judging(judged) and bench(rejudge=True)._needs_judging(judged)  # judged by another --judge


def test_reaper_kills_the_marked_processes_of_one_slot_only(tmp_path):
    """An orphan (its shell gone, parent init, own session) carrying the bench's mark is found and killed; the same
    bench's other slot and another bench folder are left alone."""
    import os
    import signal
    import subprocess
    import time

    from clawrec.bench.reaper import DIR_VAR, SLOT_VAR, marked, reap

    def orphan(root: str, slot: str) -> int:
        sh = subprocess.run(["/bin/sh", "-c", "sleep 60 >/dev/null 2>&1 & echo $!"], capture_output=True, text=True,
                            env={**os.environ, DIR_VAR: root, SLOT_VAR: slot}, start_new_session=True, check=True)
        return int(sh.stdout)

    mine, other_slot, other_bench = orphan("/b1", "t/a/trial-1"), orphan("/b1", "t/a/trial-2"), orphan("/b2", "x")
    try:
        assert set(marked("/b1")) == {mine, other_slot} and marked("/b1", "t/a/trial-1") == [mine]
        assert reap("/b1", "t/a/trial-1") == 1
        end = time.monotonic() + 10
        while os.path.exists(f"/proc/{mine}") and time.monotonic() < end:  # init reaps it
            time.sleep(0.05)
        assert not os.path.exists(f"/proc/{mine}") or mine not in marked("/b1")
        assert set(marked("/b1")) == {other_slot} and marked("/b2") == [other_bench]
    finally:
        for pid in (mine, other_slot, other_bench):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_a_run_that_lost_a_layer_says_so_in_its_row_and_the_summary():
    """ffmpeg killed mid-run: the recorder goes on without video (manifest layers.video.failed); the bench counted
    that run as a clean PASS. Now the row names the lost layer and the summary counts it."""
    from clawrec.bench.results import layers_failed

    manifest = {"status": "intercepted", "layers": {
        "video": {"path": "video.mp4", "failed": "ffmpeg killed by SIGKILL"}, "http": {"path": "http.jsonl"}}}
    assert layers_failed(manifest) == {"video": "ffmpeg killed by SIGKILL"}
    assert layers_failed({"layers": {"http": {"count": 3}}}) == {} and layers_failed({}) == {}
    plan = Plan(specs=[SpecEntry(t, f"/{t}.yaml", "0" * 64, "travel", 60) for t in "ab"],
                agents=[AgentEntry("x")], trials=1)
    rows = [{**_row("a", "x", "pass"), "layers_failed": layers_failed(manifest)},
            {**_row("b", "x", "pass"), "layers_failed": {}}]
    s = summarize(plan, rows)
    assert s["layers_failed"] == 1
    assert any("1 finished run(s) lost a layer on the way (video 1;" in n for n in s["notes"])
    assert summarize(plan, [rows[1], {**rows[1], "task": "a"}])["layers_failed"] == 0
