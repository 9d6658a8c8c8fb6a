"""`clawrec bench specs/demo --agent claude-code|codex -j 2`: the real CLI with Playwright MCP completes the demo's
jobs task (its résumé upload through the file chooser) and the social share (its dialog a popup tab); all five tasks
in `make bench BENCH=agents` against one scripted model server (tests/support/demo_bench.py, mcp_demo.py): every run
caught its terminal request and the payload judge says PASS, read from the bench's own results.jsonl; two runs at
once kept their private directories apart, and both are gone. (A wrong script's FAIL: test_claude_code.py,
test_codex.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.demo_bench import TEST_TASKS, bench_demo, private_dirs


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_mcp_agent_completes_demo_tasks(agent, tmp_path):
    bench = bench_demo(tmp_path / "bench", [agent], tasks=TEST_TASKS, jobs=2)
    assert bench.exit == 0, bench.stderr
    assert not bench.script_errors, bench.script_errors
    assert sorted(r["task"] for r in bench.rows) == sorted(TEST_TASKS)
    outcomes = {r["task"]: (r["status"], r["verdict"], r["stop_reason"]) for r in bench.rows}
    assert all(r["status"] == "intercepted" and r["verdict"] == "PASS" for r in bench.rows), outcomes
    privates = private_dirs(bench.out)
    assert len(privates) == len(set(privates)) == len(TEST_TASKS)
    assert not [p for p in privates if Path(p).exists()]
