"""The agent contract: what an adapter is given and what it returns.

An adapter drives our instrumented Chromium through `ctx.cdp_url`; the pipeline owns the browser, the interceptor
and the recorder. The pipeline cancels `run()` when the run must stop (terminal request caught + grace, limits),
so adapters must be cancellable and must kill any subprocess they started when cancelled.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol


class AgentLog(Protocol):
    """Sink for agent.jsonl; `t` is added from the run clock. role: system|user|assistant|tool_call|tool_result."""

    def __call__(self, role: str, content: Any, **fields: Any) -> None: ...


@dataclass
class TaskInfo:
    """What the agent may know of the task (never the intercept rules)."""

    id: str
    instruction: str
    start_url: str
    user: dict[str, Any] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)  # absolute paths
    limits: dict[str, Any] = field(default_factory=dict)  # {time_s, steps}
    sop: dict[str, Any] | None = None  # the SOP given after the instruction: {source, sha256} (clawrec/sop_given.py)

    def to_json(self) -> dict[str, Any]:
        out = {"id": self.id, "instruction": self.instruction, "start_url": self.start_url, "user": self.user,
               "files": self.files, "limits": self.limits}
        return {**out, "sop": self.sop} if self.sop else out


@dataclass
class AgentContext:
    cdp_url: str              # http://127.0.0.1:PORT (browser-level DevTools HTTP endpoint)
    task: TaskInfo
    run_dir: Path
    log: AgentLog
    model: str | None = None  # e.g. anthropic/claude-sonnet-4-5 or openai/gpt-5.4-mini
    options: dict[str, Any] = field(default_factory=dict)  # adapter flags (agent_cmd, replay_from, …)
    stop: asyncio.Event = field(default_factory=asyncio.Event)  # set when the pipeline wants the agent to end
    # An adapter that starts a program in its own process group reports the group leader's pid here: the fail-closed
    # watchdog then kills that group with the browser, even when clawrec itself is SIGKILLed (no orphan agent).
    on_process_group: Callable[[int], None] | None = None
    # An adapter that keeps the task in clear outside the run directory (OpenClaw's prompt and state, in a private
    # temp directory) reports that path here: the watchdog removes it if clawrec is SIGKILLed before the adapter can.
    on_private_path: Callable[[Path], object] | None = None


@dataclass
class AgentResult:
    status: str = "ok"        # ok | error
    message: str = ""
    steps: int = 0
    usage: dict[str, Any] = field(default_factory=dict)


class Agent(Protocol):
    name: str

    async def run(self, ctx: AgentContext) -> AgentResult: ...


class AgentSetupError(Exception):
    """The agent cannot start for a reason the user can fix (not installed, missing flag, no key): exit 2."""
