"""Running `clawrec bench` from tests (always the real CLI, as a subprocess) and recomputing its table
independently from the run directories (json + arithmetic only, no clawrec.bench code)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "specs" / "demo"
AGENT = Path(__file__).resolve().parent / "agent_scripts" / "bench_agent.py"
REFERENCE = REPO / "runs" / "reference" / "travel-flight-oneway"
FAST = ["--headless", "--no-video", "--serve-sites", "--quiet"]
CATEGORIES = ("daily", "finance", "work", "dev", "academic", "travel", "social", "pets")


def agent_cmd(modes: str) -> str:
    return f"{sys.executable} {AGENT} {modes}"


def bench_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "clawrec.cli", "bench", *args]


def bench(*args: str, env: dict[str, str] | None = None, timeout: float = 400) -> subprocess.CompletedProcess:
    return subprocess.run(bench_argv(*args), capture_output=True, text=True, cwd=REPO, timeout=timeout,
                          env={**os.environ, **(env or {})})


def slot_dirs(root: Path) -> list[Path]:
    """The latest attempt of every slot: runs/<task>/<agent>/trial-K (not the .attempt-N folders kept aside)."""
    return sorted(p for p in (root / "runs").glob("*/*/trial-*") if p.is_dir() and ".attempt-" not in p.name)


def read(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def recompute(root: Path) -> dict[str, dict[str, dict[str, tuple[int, int]]]]:
    """label → column → {stage1: (hits, n), stage2: (hits, n)} straight from manifests and verdicts on disk."""
    plan = json.loads((root / "bench.json").read_text())
    categories = {s["id"]: s["category"] for s in plan["specs"]}
    table: dict[str, dict[str, dict[str, list[int]]]] = {}
    for d in slot_dirs(root):
        task, label = d.parts[-3], d.parts[-2]
        m = read(d / "manifest.json") or {}
        status = m.get("status")
        if status not in ("intercepted", "ok", "timeout", "agent_error"):
            continue  # infrastructure failure: not in any denominator
        v = (read(d / "verdict.json") or {}).get("verdict")
        for col in ("overall", categories[task]):
            cell = table.setdefault(label, {}).setdefault(col, {"stage1": [0, 0], "stage2": [0, 0]})
            cell["stage1"][0] += status == "intercepted"
            cell["stage1"][1] += 1
            if v in ("PASS", "FAIL"):
                cell["stage2"][0] += v == "PASS"
                cell["stage2"][1] += 1
    return {lab: {col: {k: tuple(x) for k, x in c.items()} for col, c in cols.items()} for lab, cols in table.items()}


def summary_cells(root: Path) -> dict[str, dict[str, dict[str, tuple[int, int]]]]:
    s = json.loads((root / "summary.json").read_text())
    out: dict[str, dict[str, dict[str, tuple[int, int]]]] = {}
    for r in s["rows"]:
        for col, cell in r["columns"].items():
            if cell["stage1"]["n"]:
                out.setdefault(r["label"], {})[col] = {k: (cell[k]["hits"], cell[k]["n"]) for k in ("stage1", "stage2")}
    return out


def check_rates(root: Path) -> None:
    """Every rate and SE in summary.json is hits/n and sqrt(p(1-p)/n) of its own counts."""
    for r in json.loads((root / "summary.json").read_text())["rows"]:
        for cell in r["columns"].values():
            for st in cell.values():
                if st["n"]:
                    p = st["hits"] / st["n"]
                    assert math.isclose(st["rate"], p) and math.isclose(st["se"], math.sqrt(p * (1 - p) / st["n"]))


def cmdline(pid: str) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def procs(needle: str) -> list[str]:
    """PIDs of the processes whose command line contains `needle`."""
    return [p for p in os.listdir("/proc") if p.isdigit() and needle in cmdline(p)]


def status(run_dir: Path) -> str | None:
    """The manifest's status (None: no readable manifest yet)."""
    return (read(run_dir / "manifest.json") or {}).get("status")
