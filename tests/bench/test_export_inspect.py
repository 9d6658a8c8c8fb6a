"""`clawrec export inspect BENCH_DIR`: the folder's shared demo bench (conftest.py: two demo tasks × a command agent
and the replay agent × 2 trials) as an Inspect log, read back with Inspect's own reader: one sample per run, the
score of each run's verdict.json, its run directory, messages from its agent.jsonl, tokens and cost from its
manifest."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from inspect_ai.log import read_eval_log

from tests.bench.helpers import REPO


def export(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "clawrec.cli", "export", "inspect", *args], capture_output=True,
                          text=True, cwd=REPO, timeout=120)


def test_a_bench_as_an_inspect_log(demo_bench, tmp_path):
    src, _ = demo_bench
    bench = tmp_path / "bench"
    shutil.copytree(src, bench)  # the shared bench stays as it is; one manifest gets an agent's usage below
    rows = [json.loads(line) for line in (bench / "results.jsonl").read_text().splitlines()]
    first = bench / rows[0]["run_dir"] / "manifest.json"
    manifest = json.loads(first.read_text())
    # (no agent_result when the agent was stopped at the catch rather than ending by itself: on a loaded machine the
    # command agent may not exit within the grace; the usage is what is read here either way)
    manifest.setdefault("agent_result", {})["usage"] = {"input_tokens": 1200, "output_tokens": 34, "requests": 3,
                                                        "cost_usd": 0.0042}
    first.write_text(json.dumps(manifest))
    proc = export(str(bench), "--out", str(tmp_path / "demo.eval"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(tmp_path / "demo.eval")
    log = read_eval_log(str(tmp_path / "demo.eval"))
    assert log.status == "success" and len(log.samples) == len(rows) == 8
    by_run = {Path(s.store["clawrec:run_dir"]).resolve(): s for s in log.samples}
    assert len(by_run) == 8
    expected = {"PASS": "C", "FAIL": "I"}
    for row in rows:
        s = by_run[(bench / row["run_dir"]).resolve()]
        assert s.id == f"{row['task']}:{row['label']}" and s.epoch == row["trial"]
        assert s.metadata["clawrec"]["status"] == row["status"]
        assert row["verdict"] in expected, row  # every run of the fixture is judged
        assert s.scores["clawrec_scorer"].value == expected[row["verdict"]]
        agent_lines = (bench / row["run_dir"] / "agent.jsonl").read_text().splitlines()
        calls = sum(json.loads(x)["role"] == "tool_call" for x in agent_lines)
        assert sum(len(m.tool_calls or []) for m in s.messages if m.role == "assistant") == calls
    usage = by_run[first.parent.resolve()].model_usage
    assert [(u.input_tokens, u.output_tokens, u.total_cost) for u in usage.values()] == [(1200, 34, 0.0042)]
    passed = sum(r["verdict"] == "PASS" for r in rows)
    assert log.results.scores[0].metrics["accuracy"].value == passed / 8 and 0 < passed < 8


def test_not_a_bench_folder_is_one_line(tmp_path):
    proc = export(str(tmp_path))
    assert proc.returncode == 2 and proc.stderr == f"clawrec: {tmp_path}: no bench.json (not a clawrec bench folder)\n"


def test_a_bench_plan_as_an_inspect_dataset(demo_bench):
    """clawrec_dataset(plan=BENCH_DIR): one sample per spec of the bench's plan, the task message as agents get it."""
    from clawrec.inspect import clawrec_dataset

    bench, _ = demo_bench
    samples = list(clawrec_dataset(plan=bench))
    assert [s.id for s in samples] == ["social-status-update", "travel-flight-oneway"]
    travel = samples[1]
    assert travel.input.startswith("On Skylark") and "- email: alex.doe@example.com" in travel.input
    assert travel.metadata["spec"] == str(REPO / "specs" / "demo" / "travel-flight-oneway.yaml")
    assert travel.metadata["category"] == "travel" and json.loads(travel.target)["flight_id"] == "SK344"
    assert [s.id for s in clawrec_dataset(plan=bench / "bench.json", ids=["travel-flight-oneway"])] == \
        ["travel-flight-oneway"]
