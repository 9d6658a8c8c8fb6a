"""The bench loop: decide from disk what each slot needs, run N at a time, retry infrastructure failures with
backoff, judge each run as it finishes, keep results.jsonl current, render the summary at the end.

Why asyncio: the runner waits on many children (or Ray tasks) and a progress display at once; judging (sync SDK
calls) goes to worker threads so a slow judge never delays the next run's start.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clawrec.bench.child import Job, build_argv, child_env
from clawrec.bench.executors import Executor
from clawrec.bench.judging import judge_slot
from clawrec.bench.plan import Plan, Slot
from clawrec.bench.progress import Progress
from clawrec.bench.reaper import reap
from clawrec.bench.report import render
from clawrec.bench.results import row, write_results
from clawrec.bench.state import ATTEMPT_FILE, SlotState, failed_attempt_dirs, move_aside, read_slot, write_json
from clawrec.errors import ClawrecError
from clawrec.unfinished import finalize_if_dead, manifest_status
from rundir import lock

LOCK_FILE = ".bench.lock"
LOCK_WAIT_S = 30.0
BACKOFF_MAX_S = 60.0
JUDGES_AT_ONCE = 2


@dataclass
class BenchOptions:
    root: Path
    plan: Plan
    jobs: int = 1
    retries: int = 2
    rerun_failed: bool = False
    rejudge: bool = False
    no_judge: bool = False
    deadline_margin: float = 120.0
    backoff_s: float = 2.0
    html: bool = False
    cwd: str = field(default_factory=os.getcwd)


def retry_hint(spent: list[SlotState], retries: int) -> str:
    """The flag that re-runs slots whose retry budget is spent: --retries one above their failed attempts."""
    need = max(st.failed_attempts + 1 for st in spent)
    return f"`--retries {max(need, retries + 1)}` runs them again"


@contextlib.contextmanager
def bench_lock(root: Path):
    """One bench per folder. A bench killed a moment ago may still be ending its runs: wait a little for it. The
    lock file goes when the bench ends (a bench that waited on it then finds it replaced, and locks the new one)."""
    root.mkdir(parents=True, exist_ok=True)
    path = root / LOCK_FILE
    deadline = time.monotonic() + LOCK_WAIT_S
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            if time.monotonic() > deadline:
                raise ClawrecError(f"{root}: another clawrec bench is running on this folder") from None
            time.sleep(0.2)
            continue
        if _same_file(fd, path):
            break
        os.close(fd)  # removed by the bench that held it while we waited: lock the current one
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        with contextlib.suppress(OSError):
            path.unlink()
        os.close(fd)


def _same_file(fd: int, path: Path) -> bool:
    try:
        st = os.stat(path)
    except OSError:
        return False
    own = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (own.st_dev, own.st_ino)


def finalize_killed(path: Path) -> bool:
    """A run whose process was killed (by its deadline, by a dying bench) keeps no `running` manifest: it is finalized
    as `clawrec judge`/`view` would (clawrec/unfinished.py: status `interrupted`, layers recovered)."""
    if manifest_status(path) != "running":
        return False
    return finalize_if_dead(path, "bench", quiet=True) == "interrupted"


def settle(path: Path, wait_s: float = LOCK_WAIT_S) -> None:
    """An earlier attempt is made final before it is moved aside: its process may still be dying (an orphan of a
    killed bench finalizing itself: wait for its lock), or dead with its manifest `running` (a soak with faults left
    attempt folders that said `running` forever)."""
    end = time.monotonic() + wait_s
    while manifest_status(path) in ("running", None) and lock.state(path) == "live" and time.monotonic() < end:
        time.sleep(0.2)
    if not (path / "manifest.json").exists() and lock.state(path) != "live":  # killed before it wrote one
        from recorder.manifest import recover

        recover(path, status="interrupted", reason="its clawrec process was killed before it wrote a manifest")
    finalize_killed(path)


class Bench:
    def __init__(self, opts: BenchOptions, executor: Executor, progress: Progress) -> None:
        self.opts, self.executor, self.progress = opts, executor, progress
        self.states: dict[str, SlotState] = {}
        self.judge_sem = asyncio.Semaphore(JUDGES_AT_ONCE)
        self.run_sem = asyncio.Semaphore(max(1, opts.jobs))
        self.overhead: list[float] = []
        self.summary: dict[str, Any] = {}  # rendered at the end, also when the bench is stopped

    # --- decisions ------------------------------------------------------------------------------------------------
    def _needs_judging(self, st: SlotState) -> bool:
        if self.opts.no_judge or st.kind != "done":
            return False
        j = st.judge_state
        if j == "unjudged":
            return True
        if self.opts.rejudge and j == "judge_inconclusive":
            return True
        judged_by = (st.verdict or st.judge_error or {}).get("judge")
        return self.opts.rejudge and judged_by != self.opts.plan.judge

    def _needs_run(self, st: SlotState) -> bool:
        if st.kind in ("todo", "stopped"):  # a stop by the person is not an attempt: it never spends --retries
            return True
        if st.kind == "infra":
            return st.failed_attempts < self.opts.retries
        if st.kind == "done":
            task = st.manifest.get("task") if isinstance(st.manifest.get("task"), dict) else {}
            if task.get("spec_sha256") not in (None, st.slot.spec.sha256):  # re-planned: its spec changed
                return True
            return self.opts.rerun_failed and st.manifest.get("status") == "agent_error"
        return False

    # --- one slot -------------------------------------------------------------------------------------------------
    def _job(self, slot: Slot, attempt: int) -> Job:
        run_dir = slot.run_dir(self.opts.root)
        flags = self.opts.plan.run_flags
        limit = float(flags.get("time_limit") or slot.spec.time_s)
        return Job(key=slot.key, argv=build_argv(slot, run_dir, flags), run_dir=str(run_dir), cwd=self.opts.cwd,
                   env=child_env(slot, attempt, self.opts.root), deadline_s=limit + self.opts.deadline_margin,
                   log_path=str(run_dir.with_name(f".{run_dir.name}.log")),
                   stop_path=str(run_dir.with_name(f".{run_dir.name}.stop")))

    async def _attempt(self, slot: Slot) -> SlotState:
        root = self.opts.root
        path = slot.run_dir(root)
        job = self._job(slot, 0)
        stale_log = Path(job.log_path)  # a killed bench never moved its run's log in: it goes with that attempt
        if path.is_dir() and not any(path.iterdir()):
            path.rmdir()
        elif path.exists():
            await asyncio.to_thread(settle, path)
            kept = move_aside(path)
            if stale_log.exists():
                shutil.move(str(stale_log), str(kept / "bench.log"))
        stale_log.unlink(missing_ok=True)
        Path(job.stop_path).unlink(missing_ok=True)  # a stopped attempt's flag must not stop this one
        path.parent.mkdir(parents=True, exist_ok=True)
        before = read_slot(root, slot)
        attempt = before.failed_attempts + before.stopped_attempts + 1
        job = self._job(slot, attempt)
        t0 = time.monotonic()
        self.progress.started(slot.key)
        try:
            res = await self.executor.run(job)
        except asyncio.CancelledError:  # the bench was stopped: the run was stopped with it (finalized, retried later)
            Path(job.stop_path).unlink(missing_ok=True)
            self._record(path, job, attempt, {"exit_code": None, "stopped": "the bench was stopped"})
            finalize_killed(path)  # killed only if it did not end within STOP_WAIT_S
            raise
        t1 = time.monotonic()
        self._record(path, job, attempt, {"exit_code": res.exit_code, "elapsed": res.elapsed, "killed": res.killed,
                                          "error": res.error, "node": res.node})
        await asyncio.to_thread(finalize_killed, path)  # killed at its deadline or its worker died: made final
        st = read_slot(root, slot)
        self.overhead.append(max(0.0, (time.monotonic() - t1) + ((t1 - t0) - res.elapsed)))
        return st

    def _record(self, path: Path, job: Job, attempt: int, what: dict[str, Any]) -> None:
        """The attempt's record in its run directory: bench_attempt.json and the child's output as bench.log."""
        path.mkdir(parents=True, exist_ok=True)  # a child that died before creating it still leaves a record
        log = Path(job.log_path)
        if log.exists():
            shutil.move(str(log), str(path / "bench.log"))
        write_json(path / ATTEMPT_FILE, {"attempt": attempt, **what, "executor": self.executor.name,
                                         "deadline_s": job.deadline_s, "argv": job.argv[1:]})

    def _finalize_killed_runs(self, slots: list[Slot]) -> int:
        """Runs of a bench that was killed (kill -9: its runs died with it) have no attempt record (the runner writes
        it when the child ends): that is a stop, not a failure of the run, so the record says `stopped` (no
        --retries spent). Those left `running` are finalized first, as judge/view/diagnose do (status
        `interrupted`); the number finalized. We hold the bench lock, so a run whose lock is still live is an orphan
        of that bench still dying: wait for it."""
        n = 0
        for slot in slots:
            path = slot.run_dir(self.opts.root)
            if not path.is_dir() or not any(path.iterdir()) or (path / ATTEMPT_FILE).exists():
                continue
            running = manifest_status(path) == "running"
            end = time.monotonic() + LOCK_WAIT_S
            while running and lock.state(path) == "live" and time.monotonic() < end:
                time.sleep(0.2)
            write_json(path / ATTEMPT_FILE, {"attempt": self._attempt_number(slot), "exit_code": None,
                                             "stopped": "the bench was killed before the run ended",
                                             "executor": self.executor.name})
            n += running and finalize_killed(path)
        return n

    def _attempt_number(self, slot: Slot) -> int:
        st = read_slot(self.opts.root, slot)
        return st.failed_attempts + st.stopped_attempts + 1

    def _spent(self, st: SlotState) -> str:
        return (f"{st.slot.key}: infrastructure failure ({st.reason}); --retries {self.opts.retries} spent, "
                f"{retry_hint([st], self.opts.retries)}")

    async def _slot(self, slot: Slot, st: SlotState) -> None:
        tries = 0
        while self._needs_run(st):
            if tries:
                delay = min(BACKOFF_MAX_S, self.opts.backoff_s * 2 ** (tries - 1))
                self.progress.note(f"{slot.key}: infrastructure failure ({st.reason}); retry in {delay:g} s")
                await asyncio.sleep(delay)
            async with self.run_sem:
                st = await self._attempt(slot)
            tries += 1
            self.states[slot.key] = st
            if st.kind != "infra":
                break
            if not self._needs_run(st):
                self.progress.note(self._spent(st))
        if self._needs_judging(st):
            async with self.judge_sem:
                self.progress.judging(slot.key)
                await asyncio.to_thread(judge_slot, st, self.opts.plan.judge,
                                        self.opts.plan.run_flags.get("reference"))
        self.states[slot.key] = st
        self.progress.finished(slot.key, row(self.opts.root, st))
        write_results(self.opts.root, [row(self.opts.root, s) for s in self.states.values()])

    async def run(self) -> dict[str, Any]:
        slots = self.opts.plan.slots()
        reaped = reap(str(self.opts.root))  # a bench kill -9'd before us may have left an agent alive
        finalized = self._finalize_killed_runs(slots)
        for s in slots:
            self.states[s.key] = read_slot(self.opts.root, s)
        pending = [(s, self.states[s.key]) for s in slots
                   if self._needs_run(self.states[s.key]) or self._needs_judging(self.states[s.key])]
        self.progress.begin(total=len(slots), already=[row(self.opts.root, self.states[s.key]) for s in slots
                                                       if all(s is not p for p, _ in pending)])
        if reaped:
            self.progress.note(f"bench: {reaped} process(es) left alive by an earlier bench's runs killed")
        if finalized:
            self.progress.note(f"bench: {finalized} run(s) left `running` by a killed bench finalized "
                               "(status interrupted); they are run again (not counted against --retries)")
        spent = [self.states[s.key] for s in slots if self.states[s.key].kind == "infra"
                 and not self._needs_run(self.states[s.key])]
        if spent:
            self.progress.note(f"bench: {len(spent)} run(s) ended in an infrastructure failure and spent --retries "
                               f"{self.opts.retries}; {retry_hint(spent, self.opts.retries)}")
        tasks = [asyncio.create_task(self._slot(s, st), name=f"slot-{s.key}") for s, st in pending]
        try:
            await asyncio.gather(*tasks)
        finally:
            for t in tasks:
                if not t.cancelling():  # once: a stopped bench already cancelled them (each run is stopping)
                    t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            for s in slots:  # attempts moved aside while their process was still dying are final by now
                for kept in failed_attempt_dirs(s.run_dir(self.opts.root)):
                    finalize_killed(kept)
            self.progress.end()
            self.summary = render(self.opts.root, self.opts.plan, html=self.opts.html)
        self.summary["runner_overhead_s"] = (sum(self.overhead) / len(self.overhead)) if self.overhead else None
        return self.summary
