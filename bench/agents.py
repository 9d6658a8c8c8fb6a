"""The agents people bring, side by side (issue 25): `clawrec bench specs/demo --agent browser-use --agent claude-code
--agent codex --agent computer-use --model …` on all five demo tasks, -j 2, against one scripted model server
(offline; tests/support/demo_bench.py dispatches by model name to the agent's demo script and by instruction to the
task).

What it shows: one Table 2 with four rows (one per agent:model), every run intercepted and judged PASS with the right
scripts; the same bench with each agent's wrong scripts (one submitted value changed) judged FAIL on every task;
and two runs at once never shared state (each run's private directory is its own and is gone after the run).
CLAWREC_BENCH_AGENTS=claude-code,codex runs a subset (an agent whose demo module is missing is one clear error).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from tests.support.demo_bench import AGENTS, DemoBench, bench_demo, private_dirs

ORDER = ("browser-use", "claude-code", "codex", "computer-use")  # the order: the rows of Table 2
PRIVATE = {"claude-code", "codex", "browser-use"}  # the agents with a private directory (computer-use has none)


def agents() -> list[str]:
    chosen = [a.strip() for a in os.environ.get("CLAWREC_BENCH_AGENTS", "").split(",") if a.strip()] or list(ORDER)
    unknown = [a for a in chosen if a not in AGENTS]
    if unknown:
        raise ValueError(f"CLAWREC_BENCH_AGENTS: unknown agent(s) {', '.join(unknown)} (have: {', '.join(ORDER)})")
    return chosen


def report(bench: DemoBench, expected: str) -> dict[str, Any]:
    """Per agent: each task's outcome (`intercepted PASS`, or the status, verdict and stop reason when it is not)."""
    by_agent: dict[str, dict[str, str]] = {}
    for r in bench.rows:
        cell = f"{r['status']} {r['verdict']}"
        if r["status"] != "intercepted" or r["verdict"] != expected:
            cell += f" ({str(r.get('stop_reason'))[:160]})"
        by_agent.setdefault(f"{r['agent']}:{r['model']}", {})[r["task"]] = cell
    privates = private_dirs(bench.out)
    with_private = sum(1 for r in bench.rows if r["agent"] in PRIVATE and r["status"])
    return {"exit": bench.exit, "wall_s": bench.wall_s, "runs": len(bench.rows), "rows": by_agent,
            "all_as_expected": bool(bench.rows) and all(r["status"] == "intercepted" and r["verdict"] == expected
                                                       for r in bench.rows),
            "private_dirs_distinct_and_gone": len(set(privates)) == len(privates) == with_private
            and not any(Path(p).exists() for p in privates),
            "script_errors": bench.script_errors, "table2": bench.summary or bench.stderr}


def run(out_dir: Path) -> dict:
    out = Path(out_dir) / time.strftime("%Y%m%dT%H%M%S")
    chosen = agents()
    right = bench_demo(out / "right", chosen)
    wrong = bench_demo(out / "wrong", chosen, wrong=True)
    return {"agents": chosen, "jobs": 2, "right_scripts": report(right, "PASS"),
            "wrong_scripts": report(wrong, "FAIL"), "load_average": os.getloadavg()[0]}
