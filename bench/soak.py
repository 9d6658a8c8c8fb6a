"""`make soak`: many LLM-paced runs for hours with faults injected at random moments (issue 36), then the end state.

The soak serves the demo sites and N sites of the web factory (`clawrec sites serve --log`, `clawrec factory serve
--log`: the sites' own logs are the truth of what reached them), runs `clawrec bench` over the five demo tasks and the
N generated ones (bench/soak_agent.py: the paced agent on a demo task, the factory's solver on a generated one),
headed, every layer on, and meanwhile kills, at random moments, one of: a run's Chromium, one renderer, ffmpeg, Xvfb,
the agent, a `clawrec run`, or the bench itself (then starts the bench again on the same folder: a resume).
A soak is one or more segments: `CLAWREC_SOAK_DIR` names an earlier soak's folder to go on with (its plan is kept
in soak-plan.json; the bench resumes); each segment ends when the bench completes or at its own deadline, and
writes segments/NNN.json; soak.json sums them. At the end of each segment:
- terminal requests that reached a site (the demo sites' log against every demo spec's intercept rules; a generated
  site's own `terminal` event): must be 0;
- run directories without a final manifest status (every attempt folder too): must be 0;
- planned runs the resumed bench did not finish (`todo`, or infrastructure failures past --retries);
- processes left: every process the segment started carries CLAWREC_SOAK_TAG in its environment (Chromium, Xvfb,
  ffmpeg and agents inherit it), so a leftover is found even after it was reparented: must be 0;
- temp folders (clawrec-*, org.chromium.*), /dev/shm entries and this process's open descriptors, before vs after;
- the bench process's memory against the runs it finished (KB per run: flat means no growth per run).
Site faults (bench/faults_sites.py), once the bench has completed, before the end state: one run each on a site that
hangs, answers 500, floods the console, floods a WebSocket, sends a 200 MB response, and (`disk_full`) the same
runs with the runs folder on a nearly full tmpfs; soak.json `site_faults` counts each injected and survived.
CLAWREC_SOAK_RUNS (default 2000), CLAWREC_SOAK_JOBS (8), CLAWREC_SOAK_FACTORY_SITES (20), CLAWREC_SOAK_FAULT_EVERY
(mean seconds between faults, 20), CLAWREC_SOAK_SEED, CLAWREC_SOAK_FAULT_HOURS (faults stop once the segments
together ran that long, 10), CLAWREC_SOAK_HOURS (this segment's end, 12), CLAWREC_SOAK_DIR; the paced agent's
CLAWREC_PACE_THINK / CLAWREC_PACE_ACTIONS.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

from bench.faults_sites import SITE_FAULTS, run_site_faults
from bench.procs import kind_of, leftovers, tree
from bench.soak_sites import DEMO_TASKS, demo_specs, factory_specs, generate, serving, terminal_reached

REPO = Path(__file__).resolve().parents[1]
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
        elif fault == "agent" and kind == "agent" and (b"paced_agent.py" in cmd or b"factory.solver" in cmd):
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
    """Run directories with a manifest, earlier attempts included (the x of the bench's memory per run)."""
    return sum(1 for _ in (out / "runs").glob("*/*/trial-*/manifest.json"))


def _slope(points: list[tuple[int, int]]) -> float | None:
    """Least-squares KB per finished run (None with fewer than 3 distinct x)."""
    if len({x for x, _ in points}) < 3:
        return None
    n = len(points)
    mx, my = sum(x for x, _ in points) / n, sum(y for _, y in points) / n
    den = sum((x - mx) ** 2 for x, _ in points)
    return round(sum((x - mx) * (y - my) for x, y in points) / den, 1) if den else None


def _segments(out: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted((out / "segments").glob("*.json"))]


def _plan(out: Path, runs: int, factory_sites: int) -> dict[str, int]:
    """The soak's plan, fixed by its first segment (a later segment resumes the same bench: it must plan the same)."""
    path = out / "soak-plan.json"
    if path.exists():
        return json.loads(path.read_text())
    plan = {"runs": runs, "factory_sites": factory_sites}
    path.write_text(json.dumps(plan) + "\n")
    return plan


def soak(out: Path, runs: int, jobs: int, fault_every: float, seed: int, fault_s: float,
         deadline_s: float, site_faults: tuple[str, ...] = SITE_FAULTS, disk_full: bool = True,
         factory_sites: int = 0) -> dict[str, Any]:
    """One segment of the soak in `out` (the first, or a resume of an earlier segment's folder): faults until the
    soak's segments together have run `fault_s` seconds; then the bench is resumed without faults until it completes
    (or this segment's `deadline_s` ends it: the next segment goes on). The site faults run once the bench is done."""
    out = out.resolve()  # the agents run elsewhere: a relative CLAWREC_SOAK_DIR would not reach their plans
    out.mkdir(parents=True, exist_ok=True)
    plan = _plan(out, runs, factory_sites)
    earlier = _segments(out)
    seg = len(earlier) + 1
    fault_left = fault_s - sum(s["wall_s"] for s in earlier)
    tag = uuid.uuid4().hex
    env = {**os.environ, "CLAWREC_SOAK_TAG": tag}
    before = leftovers()
    gen = out / "factory" if plan["factory_sites"] else None
    if gen is not None:
        generate(gen, plan["factory_sites"])
        env["CLAWREC_SOAK_FACTORY"] = str(gen)
    specs = demo_specs() + (factory_specs(gen) if gen is not None else [])
    trials = max(1, -(-plan["runs"] // len(specs)))
    argv = [sys.executable, "-m", "clawrec.cli", "bench", *map(str, specs),
            "--agent", "command", "--agent-cmd", f"{sys.executable} {REPO / 'bench' / 'soak_agent.py'}",
            "--trials", str(trials), "-j", str(jobs), "--no-judge", "--retries", "6", "--quiet", "--out", str(out)]
    faults = Faults(random.Random(f"{seed}:{seg}"), fault_every)
    if fault_left > 0:
        faults.start()
    started = time.monotonic()
    memory: list[tuple[int, int]] = []
    benches = 0
    with serving(out, seg, env, gen) as served:
        env["CLAWREC_SITES"] = json.dumps(served["urls"])
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
                    if time.monotonic() - started > fault_left:
                        faults.stop.set()
                    if (rss := _rss_kb(proc.pid)) is not None and rss > 20_000:  # past its start-up
                        memory.append((_finished(out), rss))
                    if time.monotonic() - started > deadline_s:  # this segment ends: its runs stop, to resume
                        proc.send_signal(signal.SIGTERM)
                        try:
                            proc.wait(120)
                        except subprocess.TimeoutExpired:
                            proc.kill()  # the bench's runs die with it (clawrec/bench/child.py)
                            proc.wait(30)
                        break
                    time.sleep(2)
                faults.bench_pid = 0
                reader.join(5)
                if proc.returncode == -signal.SIGKILL and time.monotonic() - started < deadline_s:
                    continue  # the bench was killed: resume it on the same folder
                break
        finally:
            faults.stop.set()
            if faults.is_alive():
                faults.join()
        reached = terminal_reached(served)
    done = proc.returncode == 0
    site_report = run_site_faults(out / "site-faults", site_faults, env, disk_full=False) \
        if site_faults and done else None
    disk_report = run_site_faults(out / "disk-full", site_faults[:1] or ("500",), env, disk_full=True) \
        if disk_full and done else None
    time.sleep(1)  # what the last run's children need to finish dying (each is reaped by its own parent)
    left = tagged(tag)
    segment = {
        "segment": seg, "jobs": jobs, "wall_s": round(time.monotonic() - started, 1), "bench_starts": benches,
        "bench_exit": proc.returncode, "bench_last_error": err_lines[-1].strip() if err_lines else None,
        "run_dirs_finalized": _finished(out), "faults_injected": faults.injected, "site_faults": site_report,
        "disk_full": disk_report, "terminal_requests_reached_sites": reached,
        "processes_left": [{"pid": p, "kind": kind_of(Path(f"/proc/{p}/cmdline").read_bytes())} for p in left
                           if os.path.exists(f"/proc/{p}/cmdline")],
        "leftovers_before": before, "leftovers_after": leftovers(),
        "bench_rss_kb_per_run": _slope(memory), "bench_rss_kb": [memory[0][1], memory[-1][1]] if memory else None,
    }
    (out / "segments").mkdir(exist_ok=True)
    (out / "segments" / f"{seg:03d}.json").write_text(json.dumps(segment, indent=2) + "\n")
    report = summarize(out, trials * len(specs), [*earlier, segment])
    (out / "soak.json").write_text(json.dumps(report, indent=2) + "\n")
    return report


def summarize(out: Path, planned: int, segments: list[dict[str, Any]]) -> dict[str, Any]:
    """The whole soak over its segments: faults summed, every segment's end state, and the runs' outcomes so far."""
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()] \
        if (out / "results.jsonl").exists() else []
    last = segments[-1]
    faults = {f: sum(s["faults_injected"].get(f, 0) for s in segments) for f in FAULTS}
    return {
        "runs_planned": planned, "runs_finished": sum(r["outcome"] not in ("todo", "stopped", "infra") for r in rows),
        "run_dirs_finalized": last["run_dirs_finalized"], "complete": last["bench_exit"] == 0,
        "jobs": last["jobs"], "segments": len(segments), "wall_s": round(sum(s["wall_s"] for s in segments), 1),
        "bench_starts": sum(s["bench_starts"] for s in segments), "bench_exit": last["bench_exit"],
        "bench_last_error": last["bench_last_error"], "faults_injected": faults,
        "site_faults": last["site_faults"], "disk_full": last["disk_full"],
        "outcomes": {o: sum(r["outcome"] == o for r in rows) for o in sorted({r["outcome"] for r in rows})},
        "runs_by_site": _by_site([r for r in rows if r["outcome"] != "todo"]),
        "statuses": dict(sorted(Counter(r["status"] or r["outcome"] for r in rows if r["outcome"] != "todo").items())),
        "agent_errors": sorted({r["stop_reason"][:160] for r in rows if r["status"] == "agent_error"})[:20],
        "terminal_requests_reached_sites": [h for s in segments for h in s["terminal_requests_reached_sites"]],
        "unfinalized_run_dirs": unfinished(out),
        "processes_left": [p for s in segments for p in s["processes_left"]],
        "leftovers_before": segments[0]["leftovers_before"], "leftovers_after": last["leftovers_after"],
        "leftovers_per_segment": [[s["leftovers_before"], s["leftovers_after"]] for s in segments],
        "bench_rss_kb_per_run": [s["bench_rss_kb_per_run"] for s in segments],
        "bench_rss_kb": [s["bench_rss_kb"] for s in segments],
    }


def _by_site(rows: list[dict[str, Any]]) -> dict[str, int]:
    """Finished runs on the demo sites vs the factory's generated ones."""
    demo = sum(1 for r in rows if r.get("task") in DEMO_TASKS)
    return {"demo": demo, "factory": len(rows) - demo}


def run(out_dir: Path) -> dict[str, Any]:
    """`python -m bench soak` (`make soak`): a new soak, or one more segment of `CLAWREC_SOAK_DIR`'s."""
    out = Path(os.environ.get("CLAWREC_SOAK_DIR") or out_dir / time.strftime("%Y%m%dT%H%M%S"))
    return soak(out, int(os.environ.get("CLAWREC_SOAK_RUNS", "2000")),
                int(os.environ.get("CLAWREC_SOAK_JOBS", "8")), float(os.environ.get("CLAWREC_SOAK_FAULT_EVERY", "20")),
                int(os.environ.get("CLAWREC_SOAK_SEED", "1")),
                fault_s=float(os.environ.get("CLAWREC_SOAK_FAULT_HOURS", "10")) * 3600,
                deadline_s=float(os.environ.get("CLAWREC_SOAK_HOURS", "12")) * 3600,
                factory_sites=int(os.environ.get("CLAWREC_SOAK_FACTORY_SITES", "20")))
