"""`make soak`: many LLM-paced runs for hours with faults injected at random moments (issue 36), then the end state.

The soak serves the demo sites once (`clawrec sites serve --log`: the sites' own log is the truth of what reached
them), runs `clawrec bench` over the five demo tasks with the paced agent (bench/paced_agent.py), headed, every layer
on, and meanwhile kills, at random moments, one of: a run's Chromium, one renderer, ffmpeg, Xvfb, the agent, a
`clawrec run`, or the bench itself (then starts the bench again on the same folder: a resume). At the end:
- terminal requests that reached a site (its log against every spec's intercept rules): must be 0;
- run directories without a final manifest status (every attempt folder too): must be 0;
- planned runs the resumed bench did not finish (`todo`, or infrastructure failures past --retries);
- processes left: every process the soak started carries CLAWREC_SOAK_TAG in its environment (Chromium, Xvfb,
  ffmpeg and agents inherit it), so a leftover is found even after it was reparented: must be 0;
- temp folders (clawrec-*, org.chromium.*), /dev/shm entries and this process's open descriptors, before vs after;
- the bench process's memory against the runs it finished (KB per run: flat means no growth per run).
Site faults (bench/faults_sites.py), after the process faults and before the end state: one run each on a site that
hangs, answers 500, floods the console, floods a WebSocket, sends a 200 MB response, and (`disk_full`) the same
runs with the runs folder on a nearly full tmpfs; soak.json `site_faults` counts each injected and survived.
CLAWREC_SOAK_RUNS (default 2000), CLAWREC_SOAK_JOBS (8), CLAWREC_SOAK_FAULT_EVERY (mean seconds between faults, 20),
CLAWREC_SOAK_SEED, CLAWREC_SOAK_FAULT_HOURS (faults stop then, 10) and CLAWREC_SOAK_HOURS (the end, 12); the
paced agent's CLAWREC_PACE_THINK / CLAWREC_PACE_ACTIONS.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from bench.faults_sites import SITE_FAULTS, run_site_faults
from bench.procs import kind_of, leftovers, tree

REPO = Path(__file__).resolve().parents[1]
TASKS = ("travel-flight-oneway", "jobs-apply-analyst", "shop-trail-order", "social-status-update",
         "social-share-post")
FAULTS = ("chromium", "renderer", "ffmpeg", "xvfb", "agent", "clawrec", "bench")


def tagged(tag: str) -> list[int]:
    """Live processes whose environment holds CLAWREC_SOAK_TAG=tag (zombies and unreadable ones aside)."""
    needle = f"CLAWREC_SOAK_TAG={tag}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            if needle in Path(f"/proc/{entry}/environ").read_bytes().split(b"\0"):
                state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
                if state != "Z":
                    found.append(int(entry))
        except OSError:
            continue
    return found


def victims(bench_pid: int, fault: str) -> list[int]:
    """The processes of the bench's tree one fault may hit."""
    procs = tree(bench_pid)
    if fault == "bench":
        return [bench_pid] if bench_pid in procs else []
    out = []
    for pid, kind in procs.items():
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if fault == "renderer" and kind == "chromium" and b"--type=renderer" in cmd:
            out.append(pid)
        elif fault == "chromium" and kind == "chromium" and b"--type=" not in cmd:
            out.append(pid)
        elif fault == "agent" and kind == "agent" and b"paced_agent.py" in cmd:  # (clawrec's argv names it too)
            out.append(pid)
        elif fault in ("ffmpeg", "xvfb", "clawrec") and kind == fault:
            out.append(pid)
    return out


class Faults(threading.Thread):
    """Kills one random victim at random moments (exponential gaps) while the bench runs."""

    def __init__(self, rng: random.Random, every: float) -> None:
        super().__init__(name="soak-faults", daemon=True)
        self.rng, self.every = rng, every
        self.bench_pid = 0
        self.injected = {f: 0 for f in FAULTS}
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(self.rng.expovariate(1 / self.every)):
            fault = self.rng.choice(FAULTS)
            pids = victims(self.bench_pid, fault) if self.bench_pid else []
            if not pids:
                continue
            try:
                os.kill(self.rng.choice(pids), signal.SIGKILL)
                self.injected[fault] += 1
            except ProcessLookupError:
                pass


def terminal_reached(log: Path, sites: dict[str, str]) -> list[dict[str, Any]]:
    """Requests in the sites' own log that any demo spec's intercept rule names (URL and method)."""
    from taskspec.load import load_spec
    from taskspec.match import could_match
    from taskspec.placeholders import fill

    rules = []
    for task in TASKS:
        for rule in load_spec(REPO / "specs" / "demo" / f"{task}.yaml").intercept:
            rules.append(dataclasses.replace(rule, url=fill(rule.url, sites, strict=False)) if rule.url else rule)
    hits = []
    for line in log.read_text().splitlines() if log.exists() else []:
        rec = json.loads(line)
        url = rec.get("url") or ""
        if rec.get("method") and any(could_match(r, rec["method"], url) for r in rules):
            hits.append({"method": rec["method"], "url": url})
    return hits


def unfinished(out: Path) -> list[str]:
    """Run directories (latest attempts and kept failed ones) whose manifest has no final status."""
    bad = []
    for run in (out / "runs").glob("*/*/*"):
        if not run.is_dir():
            continue
        try:
            status = json.loads((run / "manifest.json").read_text()).get("status")
        except (OSError, ValueError):
            status = None
        if status in (None, "running"):
            bad.append(f"{run.relative_to(out)} ({status or 'no manifest'})")
    return bad


def _rss_kb(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def _finished(out: Path) -> int:
    return sum(1 for _ in (out / "runs").glob("*/*/trial-*/manifest.json"))


def _slope(points: list[tuple[int, int]]) -> float | None:
    """Least-squares KB per finished run (None with fewer than 3 distinct x)."""
    if len({x for x, _ in points}) < 3:
        return None
    n = len(points)
    mx, my = sum(x for x, _ in points) / n, sum(y for _, y in points) / n
    den = sum((x - mx) ** 2 for x, _ in points)
    return round(sum((x - mx) * (y - my) for x, y in points) / den, 1) if den else None


def soak(out: Path, runs: int, jobs: int, fault_every: float, seed: int, fault_s: float,
         deadline_s: float, site_faults: tuple[str, ...] = SITE_FAULTS, disk_full: bool = True) -> dict[str, Any]:
    """Faults for the first `fault_s` seconds; then the bench is resumed without faults until it completes (or
    `deadline_s` ends it: then the report's outcomes say what is left)."""
    out.mkdir(parents=True, exist_ok=True)
    tag = uuid.uuid4().hex
    env = {**os.environ, "CLAWREC_SOAK_TAG": tag}
    before = leftovers()
    sites_proc = subprocess.Popen([sys.executable, "-m", "clawrec.cli", "sites", "serve", "--log",
                                   str(out / "sites.jsonl")], cwd=REPO, env=env, stdout=subprocess.PIPE, text=True)
    sites_line = sites_proc.stdout.readline()
    sites = json.loads(sites_line)
    env["CLAWREC_SITES"] = sites_line.strip()
    trials = max(1, -(-runs // len(TASKS)))
    argv = [sys.executable, "-m", "clawrec.cli", "bench", *(str(REPO / "specs" / "demo" / f"{t}.yaml") for t in TASKS),
            "--agent", "command", "--agent-cmd", f"{sys.executable} {REPO / 'bench' / 'paced_agent.py'}",
            "--trials", str(trials), "-j", str(jobs), "--no-judge", "--retries", "6", "--quiet", "--out", str(out)]
    faults = Faults(random.Random(seed), fault_every)
    faults.start()
    started = time.monotonic()
    memory: list[tuple[int, int]] = []
    benches = 0
    try:
        while True:
            benches += 1
            proc = subprocess.Popen(argv, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                    text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
            faults.bench_pid = proc.pid
            err_lines: list[str] = []
            reader = threading.Thread(target=lambda: err_lines.extend(proc.stderr), daemon=True)
            reader.start()
            while proc.poll() is None:
                if time.monotonic() - started > fault_s:
                    faults.stop.set()
                if (rss := _rss_kb(proc.pid)) is not None and rss > 20_000:  # past its start-up
                    memory.append((_finished(out), rss))
                if time.monotonic() - started > deadline_s:
                    proc.send_signal(signal.SIGTERM)
                    proc.wait(60)
                    break
                time.sleep(2)
            faults.bench_pid = 0
            reader.join(5)
            if proc.returncode == -signal.SIGKILL and time.monotonic() - started < deadline_s:
                continue  # the bench was killed: resume it on the same folder
            break
    finally:
        faults.stop.set()
        faults.join()
        sites_proc.send_signal(signal.SIGTERM)
        sites_proc.wait(30)
    site_report = run_site_faults(out / "site-faults", site_faults, env, disk_full=False) if site_faults else None
    disk_report = run_site_faults(out / "disk-full", site_faults[:1] or ("500",), env, disk_full=True) \
        if disk_full else None
    wall = time.monotonic() - started
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()] \
        if (out / "results.jsonl").exists() else []
    time.sleep(1)  # what the last run's children need to finish dying (each is reaped by its own parent)
    left = tagged(tag)
    after = leftovers()
    report = {
        "runs_planned": trials * len(TASKS), "jobs": jobs, "wall_s": round(wall, 1), "bench_starts": benches,
        "bench_exit": proc.returncode, "bench_last_error": err_lines[-1].strip() if err_lines else None,
        "faults_injected": faults.injected, "site_faults": site_report, "disk_full": disk_report,
        "outcomes": {o: sum(r["outcome"] == o for r in rows) for o in sorted({r["outcome"] for r in rows})},
        "terminal_requests_reached_sites": terminal_reached(out / "sites.jsonl", sites),
        "unfinalized_run_dirs": unfinished(out),
        "processes_left": [{"pid": p, "kind": kind_of(Path(f"/proc/{p}/cmdline").read_bytes())} for p in left
                           if os.path.exists(f"/proc/{p}/cmdline")],
        "leftovers_before": before, "leftovers_after": after,
        "bench_rss_kb_per_run": _slope(memory), "bench_rss_kb": [memory[0][1], memory[-1][1]] if memory else None,
    }
    (out / "soak.json").write_text(json.dumps(report, indent=2))
    return report


def run(out_dir: Path) -> dict[str, Any]:
    """`python -m bench soak` (`make soak`)."""
    stamp = time.strftime("%Y%m%dT%H%M%S")
    return soak(out_dir / stamp, int(os.environ.get("CLAWREC_SOAK_RUNS", "2000")),
                int(os.environ.get("CLAWREC_SOAK_JOBS", "8")), float(os.environ.get("CLAWREC_SOAK_FAULT_EVERY", "20")),
                int(os.environ.get("CLAWREC_SOAK_SEED", "1")),
                fault_s=float(os.environ.get("CLAWREC_SOAK_FAULT_HOURS", "10")) * 3600,
                deadline_s=float(os.environ.get("CLAWREC_SOAK_HOURS", "12")) * 3600)
