"""One run as a `clawrec run … --no-judge` child process, with a hard wall-clock deadline enforced from outside.

Why a child process per run: isolation for free (its own Xvfb via -displayfd, Chromium, CDP port, sites, agent state
dir under the run directory), and a wedged run (a stopped process, a hung browser, a loop that never yields) can be
killed with its whole process group by a runner that is not wedged with it. The child also gets PR_SET_PDEATHSIG:
if the bench itself is killed (even by SIGKILL) its runs die with it, so a resumed bench never races an orphan.
Everything the child starts (browser, Xvfb, ffmpeg, agent) already dies with the child the same way.
A bench that is stopped (SIGTERM, Ctrl-C, SIGHUP) forwards its signal to each running child, whose own handling
finalizes its run (status `crashed`, reason `terminated (SIGTERM)` or `interrupted`), and kills the group only if
the run has not ended within STOP_WAIT_S. A Ray task is stopped by a flag file the bench writes (`Job.stop_path`, in
DIR, which every node shares), never by a signal to the worker: Ray's gentle cancel is a KeyboardInterrupt, which
never comes to a worker that inherited an ignored SIGINT (a cluster started from a script, `nohup`).
Whatever way the child ended, its leftovers (an agent in its own process group, orphaned to init) are reaped by the
bench's mark in their environment (reaper.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from clawrec.bench.plan import Slot
from clawrec.bench.reaper import DIR_VAR, SLOT_VAR, reap

TAIL_BYTES = 4000
STOP_WAIT_S = 60.0  # a run stopped by the bench finalizes (agent stopped, browser closed, video joined) within this
POLL_S = 0.5        # how often a Ray task looks for its stop flag


@dataclass
class Job:
    """Everything a worker needs to run one slot (plain data: it is shipped to Ray workers as is)."""

    key: str
    argv: list[str]
    run_dir: str
    cwd: str
    env: dict[str, str]
    deadline_s: float
    log_path: str
    stop_path: str = ""            # the bench writes the stop signal's number here to stop a Ray task

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ChildResult:
    exit_code: int | None
    elapsed: float
    killed: str = ""               # why the runner killed it ("deadline: …"), empty otherwise
    error: str = ""                # the child's last `clawrec: …` stderr line, when it failed
    node: str = ""                 # where it ran (hostname; Ray node id)
    started: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


def build_argv(slot: Slot, run_dir: Path, flags: dict[str, Any]) -> list[str]:
    """`clawrec run SPEC --agent A --run-dir DIR --no-judge` + the pass-through flags, spelled as `clawrec run`."""
    argv = [sys.executable, "-m", "clawrec.cli", "run", slot.spec.path, "--agent", slot.agent.name,
            "--run-dir", str(run_dir), "--no-judge"]
    if slot.agent.model:
        argv += ["--model", slot.agent.model]
    if slot.agent.sop:
        argv += ["--sop", slot.agent.sop]
    for name in ("headless", "no_video", "serve_sites", "allow_outside_files", "archive"):
        if flags.get(name):
            argv.append("--" + name.replace("_", "-"))
    for name, opt in (("agent_cmd", "--agent-cmd"), ("replay_from", "--from"), ("grace", "--grace"),
                      ("time_limit", "--time-limit"), ("reference", "--reference"), ("archive_cap", "--archive-cap"),
                      ("site_from", "--site-from")):
        if flags.get(name) is not None:
            argv += [opt, str(flags[name])]
    return argv


def child_env(slot: Slot, attempt: int, root: Path) -> dict[str, str]:
    """What a run knows of its place in the bench (the `random` agent seeds from it); DIR and SLOT also mark every
    process the run starts, for the reaper."""
    return {"CLAWREC_BENCH_TRIAL": str(slot.trial), "CLAWREC_BENCH_ATTEMPT": str(attempt),
            SLOT_VAR: slot.key, DIR_VAR: str(root)}


def reap_job(job: Job) -> int:
    """Kill what the job's run left alive (its agent above all): the run has ended, so nothing of it may live on."""
    return reap(job.env[DIR_VAR], job.env[SLOT_VAR]) if DIR_VAR in job.env else 0


def _own_group_dying_with_parent() -> None:
    """preexec_fn: a new process group (killed as one at the deadline) and SIGKILL when the bench dies."""
    os.setpgrp()
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def kill_group(pid: int) -> None:
    """SIGKILL the run's process group (by its leader's PID: the group we created)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def last_error(log_path: Path) -> str:
    """The child's last `clawrec: …` line (its one-line reason for a non-zero exit)."""
    try:
        with open(log_path, "rb") as fh:
            fh.seek(max(0, os.path.getsize(log_path) - TAIL_BYTES))
            lines = fh.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return ""
    return next((ln.strip() for ln in reversed(lines) if ln.startswith("clawrec: ") and " agent started " not in ln),
                "")


def _popen_args(job: Job) -> dict[str, Any]:
    Path(job.log_path).parent.mkdir(parents=True, exist_ok=True)
    return {"cwd": job.cwd, "env": {**os.environ, **job.env}, "stdin": subprocess.DEVNULL,
            "preexec_fn": _own_group_dying_with_parent}


async def _stop(proc: asyncio.subprocess.Process, signum: int) -> None:
    """Forward the bench's stop signal to the run (it finalizes itself), wait at most STOP_WAIT_S, kill its group.
    Further cancellations (the runner cancelling again, asyncio.run ending) must not cut the wait short."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(proc.pid, signum)
    loop = asyncio.get_running_loop()
    waiter = asyncio.ensure_future(proc.wait())
    end = loop.time() + STOP_WAIT_S
    while not waiter.done() and loop.time() < end:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait({waiter}, timeout=end - loop.time())
    kill_group(proc.pid)
    while not waiter.done():
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait({waiter})


async def run_async(job: Job, stop_signal: Callable[[], int] = lambda: signal.SIGTERM) -> ChildResult:
    """The local executor's path: spawned on the event loop's thread (PDEATHSIG follows the forking thread).
    Cancelled (the bench is stopping): the run gets `stop_signal()` and is waited for, then CancelledError."""
    started = time.time()
    with open(job.log_path, "ab") as log:
        proc = await asyncio.create_subprocess_exec(*job.argv, stdout=log, stderr=log, **_popen_args(job))
    killed = ""
    try:
        await asyncio.wait_for(proc.wait(), job.deadline_s)
    except asyncio.TimeoutError:
        killed = f"deadline: killed after {job.deadline_s:g} s (time limit + margin); the run was wedged"
        kill_group(proc.pid)
        await proc.wait()
    except asyncio.CancelledError:  # the bench is stopping: the run ends (finalized) with it
        await _stop(proc, stop_signal())
        await asyncio.shield(asyncio.to_thread(reap_job, job))
        raise
    kill_group(proc.pid)  # anything the child left in its group
    await asyncio.to_thread(reap_job, job)
    return _result(job, proc.returncode, started, killed)


def run_sync(job: Job) -> ChildResult:
    """The same for a worker thread without an event loop (a Ray task). Stopped (the bench wrote the stop flag): the
    run gets that signal and is waited for, as in run_async, then the result says `stopped`."""
    started = time.time()
    with open(job.log_path, "ab") as log:
        proc = subprocess.Popen(job.argv, stdout=log, stderr=log, **_popen_args(job))
    killed, stopped = "", 0
    try:
        end = time.monotonic() + job.deadline_s
        while proc.poll() is None:
            if time.monotonic() > end:
                killed = f"deadline: killed after {job.deadline_s:g} s (time limit + margin); the run was wedged"
                kill_group(proc.pid)
                break
            stopped = _stop_flag(job)
            if stopped:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(proc.pid, stopped)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(STOP_WAIT_S)
                break
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(POLL_S)
    finally:
        kill_group(proc.pid)
        proc.wait()
        reap_job(job)
    result = _result(job, proc.returncode, started, killed)
    if stopped:
        result.extra["stopped"] = stopped
    return result


def _stop_flag(job: Job) -> int:
    """The signal number the bench wrote in the stop flag (0: none)."""
    if not job.stop_path:
        return 0
    try:
        text = Path(job.stop_path).read_text().strip()
    except OSError:
        return 0
    return int(text) if text.isdigit() else int(signal.SIGTERM)


def _result(job: Job, code: int | None, started: float, killed: str) -> ChildResult:
    import socket

    error = "" if code == 0 else last_error(Path(job.log_path))
    return ChildResult(exit_code=code, elapsed=round(time.time() - started, 3), killed=killed, error=error,
                       node=socket.gethostname(), started=started)
