"""`clawrec bench` throughput: runs/hour of the replay agent on the demo travel task (the demo task with a committed
reference run to replay) at -j 1 and -j 2, and the runner's own overhead per run.

Overhead per run (goal <= 1 s) = (bench wall time at -j 1 - the sum of the runs' own lifetimes, each measured by the
runner from spawning `clawrec run` to its exit) / runs: process start of the bench, planning, judging, bookkeeping.
CLAWREC_BENCH_RUNNER_RUNS sets the runs per setting (default 4).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SPEC = REPO / "specs" / "demo" / "travel-flight-oneway.yaml"
REFERENCE = REPO / "runs" / "reference" / "travel-flight-oneway"


def _bench(out: Path, runs: int, jobs: int) -> dict:
    argv = [sys.executable, "-m", "clawrec.cli", "bench", str(SPEC), "--agent", "replay", "--from", str(REFERENCE),
            "--trials", str(runs), "-j", str(jobs), "--headless", "--no-video", "--serve-sites", "--quiet",
            "--out", str(out)]
    started = time.monotonic()
    proc = subprocess.run(argv, cwd=REPO, capture_output=True, text=True)
    wall = time.monotonic() - started
    if proc.returncode != 0:
        raise RuntimeError(f"clawrec bench exited {proc.returncode}: {proc.stderr[-1000:]}")
    attempts = [json.loads(p.read_text()) for p in sorted(out.glob("runs/*/*/trial-*/bench_attempt.json"))]
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    lifetimes = [a["elapsed"] for a in attempts]
    return {"runs": runs, "jobs": jobs, "wall_s": round(wall, 2), "runs_per_hour": round(runs / wall * 3600, 1),
            "run_lifetime_median_s": round(sorted(lifetimes)[len(lifetimes) // 2], 2),
            "passed": sum(r["outcome"] == "pass" for r in rows),
            "overhead_per_run_s": round((wall - sum(lifetimes)) / runs, 2) if jobs == 1 else None}


def run(out_dir: Path) -> dict:
    runs = int(os.environ.get("CLAWREC_BENCH_RUNNER_RUNS", "4"))
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    j1 = _bench(out_dir / f"{stamp}-j1", runs, 1)
    j2 = _bench(out_dir / f"{stamp}-j2", runs, 2)
    return {"task": SPEC.stem, "agent": "replay", "j1": j1, "j2": j2,
            "speedup_j2": round(j2["runs_per_hour"] / j1["runs_per_hour"], 2),
            "overhead_per_run_s": j1["overhead_per_run_s"], "overhead_goal_s": 1.0,
            "load_average": os.getloadavg()[0]}
