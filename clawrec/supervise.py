"""While the agent works: wait for the first reason the run must end, and stop the agent.

Why its own module: the pipeline owns the order of a run; this owns when it ends. Only the interceptor (lost or
broken), the browser or its display dying, and a failed write (rundir/writeguard.py: disk full) stop a run at once,
also during `--grace`; a layer that degrades (ffmpeg or the screenshot connection lost: recorder/session.py) does
not. A catch, the agent ending and the time limit end it normally.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import traceback
from typing import Any

from clawrec.agents.base import AgentContext, AgentResult, AgentSetupError

AGENT_STOP_TIMEOUT = 10.0   # seconds an agent gets to end after cancellation before the run goes on without it
SETTLE = 1.0                # after the agent ends: how long a last in-flight submission may take to be caught
POLL_S = 0.1

Outcome = tuple[str, str, int, str, "AgentResult | None"]


def failure(rec: Any, icpt: Any, guard: Any = None) -> str | None:
    """Why the run must stop now (None: it may go on)."""
    if guard is not None and guard.error:
        return guard.error
    if rec.failed.is_set():
        return "; ".join(rec.failures) or "a layer failed"
    return getattr(icpt, "failure", None)


async def wait_failure(rec: Any, icpt: Any, guard: Any = None) -> str:
    while (why := failure(rec, icpt, guard)) is None:
        await asyncio.sleep(POLL_S)
    return why


async def supervise(agent_task: asyncio.Task, ctx: AgentContext, icpt: Any, rec: Any, time_limit: float,
                    grace: float, step_limit: int, guard: Any = None, stop: Any = None) -> Outcome:
    """Wait for the first stop condition; returns (status, stop reason, exit code, message, agent result).
    `stop` (clawrec.run_signals.RunStop): a signal's stop is also waited on here, not only its cancellation of the
    run, which can be lost on the way (see run_signals): it raises CancelledError like the cancellation."""
    outcome = await _supervise(agent_task, ctx, icpt, rec, time_limit, grace, step_limit, guard, stop)
    return scrubbed(outcome, ctx.options.get("redactor"))


def scrubbed(outcome: Outcome, redactor: Any) -> Outcome:
    """`outcome` with the run's secret values replaced (rundir/redact.py) in its reason, its message and the agent's
    own message: they reach manifest.json and the terminal, and an agent may say (or raise) what it typed."""
    if redactor is None:
        return outcome
    status, reason, code, message, result = outcome
    if result is not None and result.message:
        result = dataclasses.replace(result, message=redactor.text(result.message))
    return status, redactor.text(reason), code, redactor.text(message), result


async def _supervise(agent_task: asyncio.Task, ctx: AgentContext, icpt: Any, rec: Any, time_limit: float,
                     grace: float, step_limit: int, guard: Any = None, stop: Any = None) -> Outcome:
    caught = asyncio.create_task(icpt.caught.wait())
    broken = asyncio.create_task(wait_failure(rec, icpt, guard))
    requested = getattr(stop, "requested", None)
    stopped = asyncio.create_task(requested.wait() if requested is not None else asyncio.Event().wait())
    try:
        done, _ = await asyncio.wait({agent_task, caught, broken, stopped}, timeout=time_limit,
                                     return_when=asyncio.FIRST_COMPLETED)
        if stop is not None:
            stop.check()
        if broken in done or failure(rec, icpt, guard) is not None:
            return _crashed(rec, icpt, guard, await stop_agent(agent_task, ctx, 0))
        if icpt.catches or caught in done:
            result = await stop_agent(agent_task, ctx, grace, abort=broken)
            if guard is not None and guard.error:  # a write failed during the grace: the run is not recorded whole
                return _crashed(rec, icpt, guard, result)
            return ("intercepted", catch_reason(icpt), 0, "", result)  # a dead browser: finalize says crashed
        if agent_task in done:
            # A last submission may still be in flight; and an agent whose browser died (the fail-closed watchdog
            # kills the agent's process group with it) often ends before the loss is noticed (polled every POLL_S).
            await asyncio.wait({caught, broken}, timeout=max(SETTLE, grace), return_when=asyncio.FIRST_COMPLETED)
            if broken.done() and not icpt.catches:
                return _crashed(rec, icpt, guard, agent_outcome(agent_task)[0])
            return await _agent_ended(agent_task, ctx, icpt, 0, step_limit)
        result = await stop_agent(agent_task, ctx, 0)
        if icpt.catches:
            return ("intercepted", catch_reason(icpt), 0, "", result)
        return ("timeout", f"time limit reached ({time_limit:g} s)", 0, "", result)
    finally:
        for t in (caught, broken, stopped):
            t.cancel()


def _crashed(rec: Any, icpt: Any, guard: Any, result: AgentResult | None) -> Outcome:
    why = failure(rec, icpt, guard) or "a layer failed"
    message = why if guard is not None and why == guard.error else f"run crashed: {why}"
    return ("crashed", why, 1, message, result)


async def _agent_ended(agent_task: asyncio.Task, ctx: AgentContext, icpt: Any, settle: float,
                       step_limit: int) -> Outcome:
    if settle > 0 and not icpt.caught.is_set():
        with contextlib.suppress(asyncio.TimeoutError):  # a last submission may still be in flight
            await asyncio.wait_for(icpt.caught.wait(), settle)
    result, err = agent_outcome(agent_task)
    if err is not None and not agent_task.cancelled() and agent_task.exception() is not None:
        exc = agent_task.exception()  # the traceback is kept for whoever debugs the adapter (secrets replaced)
        text = "".join(traceback.format_exception(exc))
        if ctx.options.get("redactor") is not None:
            text = ctx.options["redactor"].text(text)
        with contextlib.suppress(OSError):
            (ctx.run_dir / "agent.error.log").write_text(text)
    if icpt.catches:
        return ("intercepted", catch_reason(icpt), 0, "", result)
    if err is not None:
        return err + (result,)  # type: ignore[return-value]
    assert result is not None
    if result.status != "ok":
        return ("agent_error", f"agent error: {result.message}", 0, "", result)
    if step_limit and result.steps >= step_limit:
        return ("timeout", f"step limit reached ({result.steps} steps)", 0, "", result)
    return ("ok", f"agent finished without a terminal submission: {result.message}".rstrip(": "), 0, "", result)


def catch_reason(icpt: Any) -> str:
    first = icpt.catches[0] if icpt.catches else {}
    return f"terminal request caught: {first.get('method', '')} {first.get('url', '')} ({first.get('rule', '')})"


def agent_outcome(task: asyncio.Task) -> tuple[AgentResult | None, tuple[str, str, int, str] | None]:
    if task.cancelled():
        return None, None
    exc = task.exception()
    if exc is None:
        return task.result(), None
    if isinstance(exc, AgentSetupError):
        return None, ("agent_error", f"agent could not start: {exc}", 2, str(exc))
    return None, ("agent_error", f"agent crashed: {type(exc).__name__}: {exc}", 0, "")


async def stop_agent(task: asyncio.Task, ctx: AgentContext, grace: float,
                     abort: asyncio.Future | None = None) -> AgentResult | None:
    """Ask the agent to stop (ctx.stop), give it `grace` seconds (cut short when `abort` completes: the browser
    died, a write failed), then cancel it."""
    ctx.stop.set()
    if not task.done() and grace > 0:
        await asyncio.wait({task} | ({abort} if abort is not None else set()), timeout=grace,
                           return_when=asyncio.FIRST_COMPLETED)
    if not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=AGENT_STOP_TIMEOUT)
    if task.done() and not task.cancelled() and task.exception() is None:
        return task.result()
    return None
