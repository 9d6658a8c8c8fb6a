"""An Inspect agent as a clawrec agent: what the pipeline runs inside one sample's clawrec run.

Why an adapter and not a new loop: clawrec's pipeline (clawrec/pipeline.py) already owns the browser, the
interceptor, every layer and when a run ends (terminal catch + grace, limits, crash); an Inspect agent (react(),
a custom one, one bridged with Inspect's agent bridge) only has to act. It gets the task as clawrec gives it to
any agent (clawrec/agents/claude.py's first message), acts through clawrec/inspect/tools.py on this run's browser,
and ends when it submits (the agent returns), when the pipeline cancels it (the catch, the time limit), at the
spec's step limit, or at an Inspect limit (kept and raised again by the solver once the run is finalized).
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from inspect_ai.agent import Agent, AgentState
from inspect_ai.model import ChatMessageUser
from inspect_ai.util import LimitExceededError

from clawrec.agents.base import AgentContext, AgentResult
from clawrec.agents.browser_tools import BrowserTools
from clawrec.agents.claude import first_message
from clawrec.agents.pwconnect import run_context
from clawrec.inspect.secrets import masked
from clawrec.inspect.session import SESSION, Session


class InspectAgent:
    """clawrec's agent protocol (clawrec/agents/base.py) around one Inspect agent, for one sample."""

    name = "inspect"

    def __init__(self, agent: Agent, model: str | None = None, secrets: tuple[str, ...] = ()) -> None:
        self.agent = agent
        self.secrets = secrets
        self.model = model
        self.state = AgentState(messages=[])
        self.limit_error: LimitExceededError | None = None
        self.session: Session | None = None

    async def run(self, ctx: AgentContext) -> AgentResult:
        text = first_message(dataclasses.replace(ctx, task=masked(ctx.task, self.secrets)))
        self.state.messages = [ChatMessageUser(content=text)]
        async with run_context(ctx.cdp_url) as context:
            tools = BrowserTools(context, files=list(ctx.task.files))
            acting: asyncio.Task | None = None

            def step_limit() -> None:
                if acting is not None:
                    acting.cancel()

            session = self.session = Session(ctx, tools, self.state, int(ctx.task.limits.get("steps") or 0),
                                             self.secrets, step_limit)
            token = SESSION.set(session)
            try:
                acting = asyncio.create_task(self.agent(self.state), name="inspect-agent")
                try:
                    self.state = session.state = await acting
                except asyncio.CancelledError:
                    me = asyncio.current_task()
                    if not session.limited or (me is not None and me.cancelling()):
                        raise  # the run stops it (catch, time limit, Ctrl-C): not the step limit
                    return self._result(f"step limit reached ({session.step_limit})")
                except LimitExceededError as exc:
                    self.limit_error = exc
                    return self._result(f"Inspect {exc.type} limit: {exc.message}")
                return self._result(self.state.output.completion[:200] or "agent ended")
            finally:
                session.sync()
                SESSION.reset(token)

    def _result(self, message: str) -> AgentResult:
        return AgentResult("ok", message, self.session.steps if self.session else 0, usage(self.state))


def usage(state: AgentState | None = None) -> dict[str, Any]:
    """The sample's model usage as clawrec's manifest records it: tokens summed over the models the sample used,
    requests = the agent's replies, cost from clawrec's price table (None when a model has no price)."""
    from inspect_ai.model import ChatMessageAssistant

    from clawrec.agents.usage import priced

    try:  # the sample's running totals: Inspect keeps them in a context variable (no public accessor)
        from inspect_ai.model._model import sample_model_usage

        per_model = dict(sample_model_usage())
    except Exception:
        per_model = {}
    replies = sum(isinstance(m, ChatMessageAssistant) for m in (state.messages if state is not None else []))
    parts = [priced(model, u.input_tokens, u.output_tokens, 0, u.input_tokens_cache_read or 0,
                    u.input_tokens_cache_write or 0) for model, u in per_model.items()]
    total = priced(next(iter(per_model)) if len(per_model) == 1 else None, 0, 0, replies)
    for part in parts:
        for k in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"):
            total[k] += part[k]
    costs = [p["cost_usd"] for p in parts]
    total["cost_usd"] = round(sum(costs), 6) if parts and None not in costs else None
    return total
