"""The clawrec run an Inspect sample is inside: its browser tools, its agent log, its step count.

Why a context variable: Inspect builds an agent's tools once per task, but each sample acts on its own browser.
The solver's bridge (clawrec/inspect/bridge.py) sets the session for the agent it runs; the tools
(clawrec/inspect/tools.py) find it there, so one tool list serves every concurrent sample. Every call goes to
agent.jsonl as the built-in `claude` agent writes it (tool_call, then tool_result with the same id), and the model's
own messages are written as they appear in the agent's state.
"""

from __future__ import annotations

import base64
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Callable

from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageTool, ChatMessageUser
from inspect_ai.tool import ContentImage, ContentText, ToolError

from clawrec.agents.base import AgentContext
from clawrec.agents.browser_tools import BrowserTools
from clawrec.inspect.secrets import filled

# Inspect tool name -> BrowserTools name (the vocabulary of clawrec/agents/browser_tools.py; `key` is its `press`)
ACTIONS = {"navigate": "navigate", "click": "click", "type": "type", "select": "select", "scroll": "scroll",
           "key": "press", "back": "back", "screenshot": "screenshot", "snapshot": "snapshot", "upload": "upload",
           "wait": "wait", "tabs": "tabs"}

SESSION: ContextVar["Session | None"] = ContextVar("clawrec_inspect_session", default=None)


def current() -> "Session":
    session = SESSION.get()
    if session is None:
        raise ToolError("no clawrec run around this tool call: use clawrec's solver (clawrec.inspect.clawrec_solver)")
    return session


@dataclass
class Session:
    ctx: AgentContext
    tools: BrowserTools
    state: Any                                # the Inspect agent's AgentState (its messages are logged from it)
    step_limit: int = 0                       # the spec's limits.steps (0: none)
    secrets: tuple[str, ...] = ()             # the spec's secret user fields (clawrec/inspect/secrets.py)
    on_step_limit: Callable[[], None] = lambda: None
    steps: int = 0
    limited: bool = False
    _logged: set[int] = field(default_factory=set)
    _pending: dict[str, list[str]] = field(default_factory=dict)   # our tool -> ids of its calls not yet run

    def sync(self) -> None:
        """Write the agent's messages not yet in agent.jsonl: system, user, assistant (with the calls of tools
        that are not ours, e.g. react's `submit`), and those tools' results. Ours log their own call and result."""
        for msg in list(getattr(self.state, "messages", [])):
            if id(msg) in self._logged:
                continue
            self._logged.add(id(msg))
            if isinstance(msg, ChatMessageSystem):
                self.ctx.log("system", msg.text)
            elif isinstance(msg, ChatMessageUser):
                self.ctx.log("user", msg.text)
            elif isinstance(msg, ChatMessageAssistant):
                self.ctx.log("assistant", msg.text, model=msg.model)
                for call in msg.tool_calls or []:
                    if call.function in ACTIONS:
                        self._pending.setdefault(call.function, []).append(call.id)
                    else:
                        self.ctx.log("tool_call", call.arguments, tool=call.function, id=call.id)
            elif isinstance(msg, ChatMessageTool) and msg.function not in ACTIONS:
                self.ctx.log("tool_result", msg.text, tool=msg.function, id=msg.tool_call_id,
                             is_error=msg.error is not None)

    async def call(self, name: str, args: dict[str, Any]) -> Any:
        """Run one browser action; a failed action is a ToolError the model reads (never the end of the run)."""
        self.sync()
        ids = self._pending.get(name) or []
        call_id = ids.pop(0) if ids else None
        args = {k: v for k, v in args.items() if v is not None}
        if self.step_limit and self.steps >= self.step_limit:
            self.limited = True
            self.on_step_limit()
            raise ToolError(f"step limit reached ({self.step_limit})")
        self.ctx.log("tool_call", args, tool=name, id=call_id)
        outcome = await self.tools.call(ACTIONS[name], filled(args, self.ctx.task.user, self.secrets))
        self.steps += 1
        self.ctx.log("tool_result", outcome.log_text, tool=name, id=call_id, is_error=outcome.is_error,
                     **outcome.record)
        if outcome.is_error:
            raise ToolError(outcome.log_text)
        return [_content(block) for block in outcome.content]


def _content(block: dict[str, Any]) -> ContentText | ContentImage:
    """An Anthropic tool_result block (BrowserTools' shape) as Inspect content."""
    if block.get("type") == "image":
        src = block["source"]
        data = src["data"] if isinstance(src["data"], str) else base64.b64encode(src["data"]).decode()
        return ContentImage(image=f"data:{src['media_type']};base64,{data}")
    return ContentText(text=str(block.get("text", "")))
