"""`python -m bench factory` (`make bench BENCH=factory`): clawrec measured on generated sites (issue 24).

Generates COUNT sites from a fixed seed and runs `clawrec factory eval -j JOBS` on them (headless, no video): the
eval's table (recall, false positives, leaks, judge accuracy, annotate success, dense progress; per family and per
channel) and the throughput in runs/hour. `$CLAWREC_FACTORY_BENCH_COUNT` / `_JOBS` override the defaults."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

SEED = 2024
COUNT = int(os.environ.get("CLAWREC_FACTORY_BENCH_COUNT") or 200)
JOBS = int(os.environ.get("CLAWREC_FACTORY_BENCH_JOBS") or 2)


def run(out: Path) -> dict[str, Any]:
    gen = out / "gen"
    shutil.rmtree(gen, ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)
    cli = [sys.executable, "-m", "clawrec.cli", "factory"]
    subprocess.run(cli + ["generate", str(gen), "--seed", str(SEED), "--count", str(COUNT)], check=True)
    proc = subprocess.run(cli + ["eval", str(gen), "-j", str(JOBS)], capture_output=True, text=True)
    (out / "eval.log").write_text(proc.stdout + proc.stderr, encoding="utf-8")
    summary = json.loads((gen / "eval.json").read_text(encoding="utf-8"))["summary"]
    shutil.copyfile(gen / "eval.md", out / "eval.md")
    return {"seed": SEED, "sites": COUNT, "jobs": JOBS, "runs": summary["runs"], "wall_s": summary["wall_s"],
            "runs_per_hour": summary["runs_per_hour"], "goal_runs_per_hour_ge_600": summary["runs_per_hour"] >= 600,
            "overall": summary["overall"], "failing_sites": [f["id"] for f in summary["failing"]],
            "eval_md": str(out / "eval.md")}
