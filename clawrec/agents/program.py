"""One agent program run the way clawrec runs every external agent (OpenClaw, browser-use, Claude Code, Codex).

Why one place: each of them needs the same care. The program runs in its own process group that dies with clawrec
(and the fail-closed watchdog kills it with the browser); its working files live in a private 0700 temp directory
outside the run directory (they hold the task in clear), removed at the end and by the watchdog after a kill -9;
its stdout/stderr reach the run directory only through the redaction policy; its transcript is read while it runs
(`drain`), and the step limit and the run's stop end it.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from clawrec.agents.base import AgentContext, AgentSetupError
from clawrec.agents.output import RedactedPipe
from clawrec.agents.procgroup import end_group, new_group_dying_with_parent
from rundir.redact import Redactor

POLL_S = 0.25


def private_dir(ctx: AgentContext, name: str) -> Path:
    """A fresh 0700 temp directory the watchdog removes if clawrec is killed before the adapter can."""
    path = Path(tempfile.mkdtemp(prefix=f"clawrec-{name}-"))
    if ctx.on_private_path is not None:
        ctx.on_private_path(path)
    return path


def redactor_of(ctx: AgentContext, secrets: list[tuple[str, str]]) -> Redactor:
    """The run's policy; alone (no pipeline), the user's secret-named values of 6+ characters."""
    return ctx.options.get("redactor") or Redactor(v for _, v in secrets if len(v) >= 6)


def log_at(ctx: AgentContext, epoch: float | None, role: str, content: Any, /, **fields: Any) -> None:
    """Log a record at the time the program wrote it, on the run clock (the sink's `clock`, or options["t0"]).
    Positional-only, so that the record's own fields may include an `epoch` (OpenClaw's do)."""
    clock = getattr(ctx.log, "clock", None)
    t0 = getattr(clock, "t0", None) or ctx.options.get("t0")
    if t0 and epoch:
        fields["t"] = round(float(epoch) - float(t0), 6)
    ctx.log(role, content, **fields)


class LineTail:
    """New whole lines of a file a program appends to (a half-written last line waits for its newline)."""

    def __init__(self, path: Path) -> None:
        self.path, self.offset = path, 0

    def lines(self) -> list[bytes]:
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return []
        end = data.rfind(b"\n") + 1
        self.offset += end
        return data[:end].splitlines()


class JsonlTail(LineTail):
    """New whole JSON lines (objects) of a file a program appends to."""

    def new(self) -> list[dict[str, Any]]:
        out = []
        for line in self.lines():
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                out.append(value)
        return out


@dataclass
class Outcome:
    code: int | None
    stopped: str  # "" when the program ended by itself
    seconds: float


async def run_program(ctx: AgentContext, argv: list[str], env: dict[str, str], cwd: Path, out_dir: Path,
                      redactor: Redactor, drain: Callable[[], int], max_steps: int, name: str,
                      time_limit_s: float | None = None, stdin: Path | None = None,
                      stdout_name: str = "stdout.log", give_up: Callable[[], str] | None = None) -> Outcome:
    """Run `argv` until it exits, the run stops, it goes past `max_steps` (counted by `drain`, called every
    POLL_S) or `time_limit_s`, or `give_up` (asked after each drain) names a reason (the model API keeps failing:
    clawrec/agents/model_api.py); stdout/stderr → out_dir/`stdout_name`, stderr.log through the policy (both
    closed, so complete, when this returns)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    out, err = RedactedPipe(out_dir / stdout_name, redactor), RedactedPipe(out_dir / "stderr.log", redactor)
    start = time.monotonic()
    source = open(stdin, "rb") if stdin is not None else None  # the prompt: never on a command line (ps shows it)
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv, stdout=out.fd, stderr=err.fd, stdin=source or asyncio.subprocess.DEVNULL, cwd=str(cwd), env=env,
            preexec_fn=new_group_dying_with_parent)
    except OSError as exc:
        await close_pipes(out, err)
        raise AgentSetupError(f"cannot start {name} ({argv[0]}): {exc}") from None
    finally:
        out.started()
        err.started()
        if source is not None:
            source.close()
    if ctx.on_process_group is not None:
        ctx.on_process_group(proc.pid)
    steps, stopped = 0, ""

    async def kill() -> None:
        await end_group(proc.pid, proc.wait, 1.0)

    try:
        while proc.returncode is None:
            try:
                await asyncio.wait_for(proc.wait(), POLL_S)
            except asyncio.TimeoutError:
                pass
            steps += drain()
            if proc.returncode is not None:
                break
            if ctx.stop.is_set():
                stopped = "stopped by the run"
            elif max_steps and steps > max_steps:
                stopped = f"went past the step limit ({max_steps} tool calls allowed)"
            elif time_limit_s and time.monotonic() - start > time_limit_s:
                stopped = f"went past the time limit ({time_limit_s:.0f} s)"
            elif give_up is not None:
                stopped = give_up()
            if stopped:
                await kill()
    except asyncio.CancelledError:
        await asyncio.shield(kill())
        drain()
        raise
    finally:
        if proc.returncode is None:
            await asyncio.shield(kill())
        await close_pipes(out, err)
    drain()
    return Outcome(proc.returncode, stopped, time.monotonic() - start)


async def close_pipes(*pipes: RedactedPipe) -> None:
    """Close the redacted pipes off the loop, even when cancelled: what the program printed is all on disk after."""
    await asyncio.shield(asyncio.gather(*(asyncio.to_thread(p.close) for p in pipes)))


def remove(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


async def remove_soon(path: Path) -> None:
    """Remove the private directory off the event loop. A cancellation that arrives meanwhile (the run's grace ran
    out while the agent was ending) does not cut the adapter short: the removal goes on in its thread (and the
    watchdog removes the path too), and the adapter still returns its steps and usage."""
    try:
        await asyncio.shield(asyncio.to_thread(remove, path))
    except asyncio.CancelledError:
        pass


def tail_line(path: Path, limit: int = 300) -> str:
    """The last non-empty line of a log, for a one-line reason."""
    try:
        lines = [ln.strip() for ln in path.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    return lines[-1][:limit] if lines else ""
