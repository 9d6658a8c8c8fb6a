"""`make bench BENCH=scale`: many LLM-paced runs at once (issue 36): where the knee is on this machine, what limits it,
and whether every layer stays whole.

Each level runs `clawrec bench` over the five demo tasks with the paced agent (bench/paced_agent.py: a think time of
1-6 s before each of 15-30 real actions), all five layers on (headed, video, screenshots), at -j LEVEL. Per level:
runs/hour, CPU per run by kind (clawrec, the Chromium tree, Xvfb, ffmpeg, the agent; bench/procs.py), memory peak
and mean, and layer completeness read from every run directory (video frames vs the nominal 10 fps over the video's span, and that span vs the run's,
a screenshot for every action the recorder shoots, every HTTP record joined with its response or error, the agent's
messages whole). The report names the knee (the level past which runs/hour stops growing by 10 % per level, or
where a layer first falls short) and what limits it; bench/out/scale/scale.svg draws runs/hour against -j.
CLAWREC_BENCH_SCALE_LEVELS (default 1,4,8,16,24), CLAWREC_BENCH_SCALE_RUNS (runs per level; default max(5, 2 x
level)), CLAWREC_PACE_THINK / CLAWREC_PACE_ACTIONS (the agent's pacing; defaults 1-6 s, 15-30).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.procs import Sampler, leftovers
from bench.soak_sites import DEMO_TASKS
from rundir.records import read_jsonl

REPO = Path(__file__).resolve().parents[1]
TASKS = DEMO_TASKS
FPS = 10  # recorder/video.py's default frame rate


def _levels() -> list[int]:
    text = os.environ.get("CLAWREC_BENCH_SCALE_LEVELS", "1,4,8,16,24")
    return [int(x) for x in text.split(",") if x.strip()]


def completeness(run: Path) -> dict[str, Any]:
    """Each layer of one run directory against what it should hold."""
    from recorder.screenshots import on_blank_page, wants_shot

    m = json.loads((run / "manifest.json").read_text())
    layers = m.get("layers") or {}
    video = layers.get("video") or {}
    nominal = max(1.0, float(video.get("duration") or 0) * FPS)  # x11grab stamps wall time: a dropped frame is a gap
    actions, _ = read_jsonl(run / "actions.jsonl") if (run / "actions.jsonl").exists() else ([], [])
    shots, _ = read_jsonl(run / "screenshots" / "screenshots.jsonl") \
        if (run / "screenshots" / "screenshots.jsonl").exists() else ([], [])
    shot_of = {s.get("action_seq") for s in shots if s.get("path")}
    wanted = [a.get("seq") for a in actions if wants_shot(a) and not on_blank_page(a)]
    http, http_bad = read_jsonl(run / "http.jsonl") if (run / "http.jsonl").exists() else ([], [])
    unjoined = sum(1 for r in http if not r.get("response") and not r.get("error") and not r.get("intercepted")
                   and not str(r.get("url", "")).startswith(("ws://", "wss://")))  # a socket has no HTTP response
    said = (m.get("recorder") or {}).get("screenshots") or {}  # the recorder's own count of shots it did not get
    return {"status": m.get("status"), "duration": m.get("duration"),
            "video_frames": video.get("frames"), "video_ratio": round((video.get("frames") or 0) / nominal, 3),
            "video_failed": bool(video.get("failed")),
            "video_coverage": round(float(video.get("duration") or 0) / max(0.1, float(m.get("duration") or 0)), 3),
            "shots_wanted": len(wanted), "shots_missing": sum(1 for s in wanted if s not in shot_of),
            "shots_reasons": dict(said.get("reasons") or {}), "shots_skipped": said.get("skipped", 0),
            "http": len(http), "http_unjoined": unjoined, "http_bad_lines": len(http_bad),
            "agent_done": m.get("status") == "intercepted",  # the paced agent reached its final click
            "agent_bad_lines": (layers.get("agent") or {}).get("bad_lines", 0)}


def _sum_counts(counts: Any) -> dict[str, int]:
    """Per reason, over runs (why the recorder said each shot it did not get is missing)."""
    total: dict[str, int] = {}
    for one in counts:
        for reason, n in one.items():
            total[reason] = total.get(reason, 0) + int(n)
    return dict(sorted(total.items()))


def _level(out: Path, jobs: int, runs: int) -> dict[str, Any]:
    trials = max(1, -(-runs // len(TASKS)))
    specs = [str(REPO / "specs" / "demo" / f"{t}.yaml") for t in TASKS]
    agent = f"{sys.executable} {REPO / 'bench' / 'paced_agent.py'}"
    argv = [sys.executable, "-m", "clawrec.cli", "bench", *specs, "--agent", "command", "--agent-cmd", agent,
            "--trials", str(trials), "-j", str(jobs), "--serve-sites", "--quiet", "--out", str(out)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    proc = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = Sampler(proc.pid).start()
    _, err = proc.communicate()
    wall = time.monotonic() - started
    cost = sampler.stop()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"clawrec bench -j {jobs} exited {proc.returncode}: {err[-800:]}")
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    done = [out / r["run_dir"] for r in rows if (out / r["run_dir"] / "manifest.json").exists()]
    comp = [completeness(d) for d in done]
    n = len(rows)
    minutes = sum(float(c["duration"] or 0) for c in comp) / 60 or 1.0
    total_cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    requests = sum(c["http"] for c in comp) or 1
    return {
        "jobs": jobs, "runs": n, "wall_s": round(wall, 1), "runs_per_hour": round(n / wall * 3600, 1),
        "passed": sum(r["outcome"] == "pass" for r in rows), "intercepted": sum(bool(r["intercepted"]) for r in rows),
        "infra": sum(r["outcome"] == "infra" for r in rows),
        "cpu_total_s": round(total_cpu, 1), "cpu_util": round(total_cpu / (wall * (os.cpu_count() or 1)), 3),
        "machine_busy": cost["machine_busy"],  # /proc/stat: the whole machine, every process (cpu_util: reaped only)
        "cpu_per_run_s": {k: round(v / max(1, n), 2) for k, v in cost["cpu_s"].items()},
        "clawrec_cpu_per_recorded_minute": round(cost["cpu_s"]["clawrec"] / minutes / 60, 4),
        "clawrec_cpu_ms_per_request_upper": round(cost["cpu_s"]["clawrec"] / requests * 1000, 2),
        "mem_used_peak_mb": cost["mem_used_peak_mb"], "mem_used_mean_mb": cost["mem_used_mean_mb"],
        "pss_peak_mb": cost["pss_peak_mb"], "processes_peak": cost["processes_peak"],
        "video_ratio_min": min((c["video_ratio"] for c in comp), default=None),
        "video_ratio_median": sorted(c["video_ratio"] for c in comp)[len(comp) // 2] if comp else None,
        "video_coverage_median": sorted(c["video_coverage"] for c in comp)[len(comp) // 2] if comp else None,
        "video_failed": sum(c["video_failed"] for c in comp),
        "shots_missing": sum(c["shots_missing"] for c in comp), "shots_wanted": sum(c["shots_wanted"] for c in comp),
        "shots_missing_reasons": _sum_counts(c["shots_reasons"] for c in comp),
        "http_unjoined": sum(c["http_unjoined"] for c in comp),
        "agent_incomplete": sum(not c["agent_done"] or bool(c["agent_bad_lines"]) for c in comp),
    }


def whole(level: dict[str, Any]) -> bool:
    """Every layer complete at this level (the issue's bar: video >= 90 % of nominal frames, every screenshot)."""
    return ((level["video_ratio_min"] or 0) >= 0.9 and level["shots_missing"] == 0 and level["http_unjoined"] == 0
            and level["agent_incomplete"] == 0 and level["infra"] == 0)


def _why_shots(level: dict[str, Any]) -> str:
    reasons = level.get("shots_missing_reasons") or {}
    return f" ({', '.join(f'{k} {v}' for k, v in reasons.items())})" if reasons and level["shots_missing"] else ""


def knee(levels: list[dict[str, Any]]) -> dict[str, Any]:
    """The last level that still grows runs/hour by >= 10 % per added level with every layer whole, and why not more."""
    best = levels[0]
    why = "the last level measured"
    for prev, cur in zip(levels, levels[1:]):
        if not whole(cur):
            why = f"layers fall short at -j {cur['jobs']} (video min {cur['video_ratio_min']}, " \
                  f"{cur['shots_missing']} screenshots missing{_why_shots(cur)}, {cur['infra']} infrastructure failures)"
            break
        if cur["runs_per_hour"] < prev["runs_per_hour"] * 1.10:
            busy = cur.get("machine_busy", cur["cpu_util"])
            limit = "CPU" if busy >= 0.85 else "memory" if cur["mem_used_peak_mb"] > 16000 else \
                "neither CPU nor memory (latency)"
            why = f"-j {cur['jobs']} adds < 10 % runs/hour ({limit}: CPU {busy:.0%} of the machine)"
            break
        best = cur
    return {"jobs": best["jobs"], "runs_per_hour": best["runs_per_hour"], "why": why}


def svg(levels: list[dict[str, Any]]) -> str:
    """runs/hour against -j (the bench overview's style: plain SVG, no script)."""
    w, h, left, top = 420, 220, 56, 16
    xs = [lv["jobs"] for lv in levels]
    hi = max((lv["runs_per_hour"] for lv in levels), default=1) * 1.1 or 1
    px = lambda j: left + w * (j / max(xs))  # noqa: E731
    py = lambda v: top + h * (1 - v / hi)  # noqa: E731
    pts = " ".join(f"{px(lv['jobs']):.1f},{py(lv['runs_per_hour']):.1f}" for lv in levels)
    out = [f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {left + w + 20} {top + h + 40}' "
           "font-family='sans-serif' font-size='11'><title>runs/hour against -j</title>",
           f"<path d='M{left} {top}V{top + h}H{left + w}' stroke='#888' fill='none'/>",
           f"<polyline points='{pts}' fill='none' stroke='#1f77b4' stroke-width='2'/>"]
    for lv in levels:
        x, y = px(lv["jobs"]), py(lv["runs_per_hour"])
        out.append(f"<circle cx='{x:.1f}' cy='{y:.1f}' r='3' fill='{'#1f77b4' if whole(lv) else '#d62728'}'/>"
                   f"<text x='{x:.1f}' y='{top + h + 14}' text-anchor='middle'>{lv['jobs']}</text>"
                   f"<text x='{x:.1f}' y='{y - 6:.1f}' text-anchor='middle'>{lv['runs_per_hour']:.0f}</text>")
    out.append(f"<text x='{left + w / 2}' y='{top + h + 32}' text-anchor='middle'>-j (runs at once); red: a layer "
               "fell short</text></svg>")
    return "".join(out)


def run(out_dir: Path) -> dict[str, Any]:
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    before = leftovers()
    levels = []
    for jobs in _levels():
        runs = int(os.environ.get("CLAWREC_BENCH_SCALE_RUNS", "0")) or max(5, 2 * jobs)
        levels.append(_level(out_dir / f"{stamp}-j{jobs}", jobs, runs))
        print(f"bench scale: -j {jobs}: {levels[-1]['runs_per_hour']} runs/hour", file=sys.stderr)
    (out_dir / "scale.svg").write_text(svg(levels))
    base = levels[0]["runs_per_hour"]
    report = {"levels": levels, "knee": knee(levels),
              "speedup": {str(lv["jobs"]): round(lv["runs_per_hour"] / base, 2) for lv in levels},
              "goal_j16_ge_12x_j1": next((lv["runs_per_hour"] / base >= 12 for lv in levels if lv["jobs"] == 16), None),
              "goal_clawrec_cpu_per_recorded_minute_le_5pct": all(
                  lv["clawrec_cpu_per_recorded_minute"] <= 0.05 for lv in levels),
              "leftovers_before": before, "leftovers_after": leftovers(), "load_average": os.getloadavg()[0],
              "plot": str(out_dir / "scale.svg")}
    (out_dir / f"{stamp}-scale.json").write_text(json.dumps(report, indent=1) + "\n")  # kept per bench: two in a row
    return report
