"""`command`: any program is an agent. It gets the browser and the task through its environment.

Why a subprocess and not an import: the program may be written in anything (a Playwright script, a Node agent, a
shell loop); the contract is four environment variables (DESIGN.md "Agents"). The program runs in its own process
group so that stopping the run kills it and everything it started.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import subprocess
from collections.abc import Awaitable
from pathlib import Path

from clawrec.agents.procgroup import end_group, new_group_dying_with_parent
from clawrec.agents.base import AgentContext, AgentResult, AgentSetupError
from clawrec.agents.output import RedactedPipe
from clawrec.agents.program import close_pipes, tail_line
from rundir.redact import Redactor

STDOUT_LOG = "agent.stdout.log"
STDERR_LOG = "agent.stderr.log"
TASK_FILE = "task.json"
EXTERNAL_LOG = "agent.external.jsonl"
TERM_GRACE = 0.2  # seconds between SIGTERM and SIGKILL when the run stops the program


def write_task_file(ctx: AgentContext) -> Path:
    """CLAWREC_TASK: the task as JSON (instruction, start_url, user, files as absolute paths, limits)."""
    path = Path(ctx.options.get("task_file") or ctx.run_dir / TASK_FILE)
    path.write_text(json.dumps(ctx.task.to_json(), indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def agent_env(ctx: AgentContext, task_file: Path, log_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update({
        "CLAWREC_CDP_URL": ctx.cdp_url,
        "CLAWREC_TASK": str(task_file),
        "CLAWREC_RUN_DIR": str(ctx.run_dir),
        "CLAWREC_AGENT_LOG": str(log_path),
    })
    if ctx.model:
        env["CLAWREC_MODEL"] = ctx.model
    if ctx.options.get("sites"):  # base URLs of the local sites this run serves (what `clawrec sites serve` prints)
        env["CLAWREC_SITES"] = json.dumps(ctx.options["sites"])
    return env


def kill_group(proc: subprocess.Popen, grace: float) -> Awaitable[None]:
    """End the program's process group (procgroup.end_group); waiting on the Popen from a thread."""
    return end_group(proc.pid, lambda: asyncio.to_thread(proc.wait), grace)


class CommandAgent:
    """Runs `--agent-cmd` (a shell command line) until it exits or the run stops."""

    name = "command"

    def check(self, ctx: AgentContext) -> None:
        cmd = ctx.options.get("agent_cmd")
        if not cmd or not str(cmd).strip():
            raise AgentSetupError("agent 'command' needs --agent-cmd \"PROGRAM ARGS\"")
        try:
            argv = shlex.split(cmd)
        except ValueError as exc:
            raise AgentSetupError(f"--agent-cmd: {exc}") from None
        if not argv:
            raise AgentSetupError("agent 'command' needs --agent-cmd \"PROGRAM ARGS\"")

    async def run(self, ctx: AgentContext) -> AgentResult:
        self.check(ctx)
        cmd = str(ctx.options["agent_cmd"])
        task_file = write_task_file(ctx)
        log_path = Path(ctx.options.get("agent_log_path") or ctx.run_dir / EXTERNAL_LOG)
        log_path.touch()
        ctx.log("system", f"command agent: {cmd}", tool="command")
        # What the program prints passes the run's redaction policy on its way to the logs (clawrec/agents/output.py).
        redactor = ctx.options.get("redactor") or Redactor()
        out, err = RedactedPipe(ctx.run_dir / STDOUT_LOG, redactor), RedactedPipe(ctx.run_dir / STDERR_LOG, redactor)
        try:
            try:
                proc = subprocess.Popen(["/bin/sh", "-c", cmd], stdout=out.fd, stderr=err.fd, stdin=subprocess.DEVNULL,
                                        env=agent_env(ctx, task_file, log_path), cwd=ctx.run_dir,
                                        preexec_fn=new_group_dying_with_parent)
            except OSError as exc:
                return AgentResult(status="error", message=f"cannot start --agent-cmd: {exc}")
            finally:
                out.started()
                err.started()
            if ctx.on_process_group is not None:
                ctx.on_process_group(proc.pid)
            try:
                code = await asyncio.to_thread(proc.wait)
            except asyncio.CancelledError:  # the run is stopping: SIGTERM (a moment to flush), then SIGKILL
                await kill_group(proc, TERM_GRACE)
                raise
            finally:
                if proc.poll() is None:
                    await kill_group(proc, TERM_GRACE)
        finally:
            await close_pipes(out, err)
        if code == 0:
            return AgentResult(status="ok", message="command exited 0")
        if code < 0:
            return AgentResult(status="error", message=f"command killed by signal {-code}")
        tail = tail_line(ctx.run_dir / STDERR_LOG, 200)  # the last stderr line: a one-line reason
        return AgentResult(status="error", message=f"command exited {code}" + (f": {tail}" if tail else ""))
