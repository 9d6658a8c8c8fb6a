"""The frozen web's cost (issue 22), measured on the local sites with real Chromium:

- page load of the four demo sites' start pages: live under clawrec (`live`), live with `--archive` capture
  (`live_archive`), and replayed from an archive recorded first (`replay`: every request answered by
  Fetch.fulfillRequest from archive/, none reaching the site); modes interleaved in a random order per repetition;
- `--archive` overhead on whole runs: `clawrec run` of each demo task (the sites' own scripted driver as a command
  agent, headless, no video) with and without `--archive`, interleaved; goal: <= 1.10x the run's wall time;
- archive size per run (bytes of RUN/archive.warc.gz, exchanges) from those runs' manifests.
CLAWREC_BENCH_ARCHIVE_REPS sets the repetitions (default 6 page-load rounds, 2 runs per task and mode)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DRIVERS = {"travel-flight-oneway": "travel", "jobs-apply-analyst": "jobs", "shop-trail-order": "shop",
           "social-status-update": "social"}
MODES = ("live", "live_archive", "replay")


async def _interceptor(mode: str, spec: Any, browser: Any, out: Path, index: Any) -> Any:
    from archive.warc import DEFAULT_CAP
    from interceptor.capture import Capture
    from interceptor.core import Interceptor
    from interceptor.replay import Replay
    from rundir.records import RunClock

    run_dir = out / f"{mode}-{time.monotonic_ns()}"
    run_dir.mkdir(parents=True)
    extra: dict[str, Any] = {}
    if mode == "live_archive":
        extra["archive"] = Capture(run_dir, DEFAULT_CAP)
    elif mode == "replay":
        extra["replay"] = Replay(index, run_dir, RunClock(), "bench")
    icpt = Interceptor(spec, run_dir, **extra)
    await icpt.attach(browser.ws_url)
    return icpt


async def _loads(pw_browser: Any, urls: list[str], warm: bool = True) -> list[float]:
    ctx = await pw_browser.new_context()
    try:
        page = await ctx.new_page()
        if warm:
            for url in urls:
                await page.goto(url, wait_until="load")
        times = []
        for url in urls:
            t0 = time.perf_counter()
            await page.goto(url, wait_until="load")
            times.append((time.perf_counter() - t0) * 1000)
        return times
    finally:
        await ctx.close()


async def _page_loads(out: Path, reps: int) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    from archive.index import ReplayIndex
    from archive.warc import read_warc
    from bench.interceptor import _union_spec
    from bench.stats import summary
    from recorder.browser import launch_browser
    from sites.server import serve_sites

    loads: dict[str, list[float]] = {m: [] for m in MODES}
    rng = random.Random(22)
    browser = launch_browser(headless=True)
    try:
        with serve_sites() as sites:
            spec, urls = _union_spec(sites.urls)
            async with async_playwright() as p:
                pw_browser = await p.chromium.connect_over_cdp(browser.http_url)
                icpt = await _interceptor("live_archive", spec, browser, out, None)  # the archive replayed below
                await _loads(pw_browser, urls)
                await icpt.close()
                archive = read_warc(icpt.archive.path)
                for _rep in range(reps):
                    for mode in rng.sample(MODES, len(MODES)):
                        index = ReplayIndex(archive.exchanges, spec.volatile) if mode == "replay" else None
                        icpt = await _interceptor(mode, spec, browser, out, index)
                        try:
                            loads[mode] += await _loads(pw_browser, urls)
                        finally:
                            await icpt.close()
                        if icpt.replay is not None:
                            loads.setdefault("replay_misses", []).append(icpt.replay.misses)  # type: ignore[arg-type]
    finally:
        browser.close()
    misses = loads.pop("replay_misses", [])
    med = {m: statistics.median(v) for m, v in loads.items()}
    return {"page_load_ms": {m: summary(v) for m, v in loads.items()},
            "replay_vs_live": round(med["replay"] / med["live"], 3),
            "live_archive_vs_live": round(med["live_archive"] / med["live"], 3),
            "replay_misses_total": sum(misses), "archive_exchanges": len(archive.exchanges),
            "archive_bytes": icpt_bytes(out)}


def icpt_bytes(out: Path) -> int:
    first = sorted(out.glob("live_archive-*/archive.warc.gz"))
    return first[0].stat().st_size if first else 0


def _run(task: str, run_dir: Path, archive: bool) -> dict[str, Any]:
    agent = f"{sys.executable} {ROOT / 'tests/pipeline/agent_scripts/drive_site.py'} {DRIVERS[task]}"
    argv = [sys.executable, "-m", "clawrec.cli", "run", str(ROOT / "specs/demo" / f"{task}.yaml"), "--agent", "command",
            "--agent-cmd", agent, "--headless", "--no-video", "--serve-sites", "--no-judge", "--run-dir", str(run_dir)]
    t0 = time.monotonic()
    proc = subprocess.run(argv + (["--archive"] if archive else []), cwd=ROOT, capture_output=True, text=True)
    wall = time.monotonic() - t0
    m = json.loads((run_dir / "manifest.json").read_text()) if (run_dir / "manifest.json").exists() else {}
    return {"wall_s": wall, "status": m.get("status"), "exit": proc.returncode,
            "archive": (m.get("site") or {}).get("archive")}


def _runs(out: Path, reps: int) -> dict[str, Any]:
    rng = random.Random(7)
    plan = [(t, a) for t in DRIVERS for a in (False, True) for _ in range(reps)]
    rng.shuffle(plan)
    got: dict[str, dict[str, list[dict[str, Any]]]] = {t: {"plain": [], "archive": []} for t in DRIVERS}
    for i, (task, archive) in enumerate(plan):
        got[task]["archive" if archive else "plain"].append(_run(task, out / f"run-{i}", archive))
    per_task: dict[str, Any] = {}
    ratios = []
    for task, modes in got.items():
        plain = statistics.median(r["wall_s"] for r in modes["plain"])
        arch = statistics.median(r["wall_s"] for r in modes["archive"])
        ratios.append(arch / plain)
        sizes = [r["archive"] for r in modes["archive"] if r["archive"]]
        per_task[task] = {"wall_s_plain": round(plain, 2), "wall_s_archive": round(arch, 2),
                          "ratio": round(arch / plain, 3),
                          "statuses": sorted({r["status"] for rs in modes.values() for r in rs}),
                          "archive_bytes": sizes[0]["bytes"] if sizes else None,
                          "archive_exchanges": sizes[0]["exchanges"] if sizes else None}
    overall = statistics.median(ratios)
    return {"per_task": per_task, "archive_overhead_ratio_median": round(overall, 3),
            "goal_archive_overhead_le_1.10": overall <= 1.10}


def run(out_dir: str | Path) -> dict[str, Any]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    reps = int(os.environ.get("CLAWREC_BENCH_ARCHIVE_REPS", "0") or 0)
    with tempfile.TemporaryDirectory(prefix="clawrec-bench-archive-", dir=out) as tmp:
        pages = asyncio.run(_page_loads(Path(tmp), reps or 6))
        runs = _runs(Path(tmp), reps or 2)
    return {"page_load": pages, "runs": runs, "load_average_1min": round(os.getloadavg()[0], 1),
            "cpus": os.cpu_count()}


if __name__ == "__main__":
    print(json.dumps(run(sys.argv[1] if len(sys.argv) > 1 else "bench/out/archive"), indent=2))
