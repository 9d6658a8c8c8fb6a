"""Agent names → adapters: the built-ins, then third-party agents from the `clawrec.agents` entry-point group.

Built-ins are imported only when chosen (the OpenClaw adapter pulls in Node tooling checks, the claude adapter the
anthropic SDK). A third-party distribution declares, in its pyproject.toml:

    [project.entry-points."clawrec.agents"]
    myagent = "mypkg.agent:MyAgent"

where `MyAgent()` (no arguments) returns an object with `name` and `async run(ctx) -> AgentResult`
(clawrec/agents/base.py). An optional `check(ctx)` raising AgentSetupError is called before the browser starts, so
that a missing flag or tool is reported at once (exit 2).
"""

from __future__ import annotations

import importlib
from importlib import metadata
from typing import Any, Callable

from clawrec.agents.base import Agent, AgentSetupError

ENTRY_POINT_GROUP = "clawrec.agents"

BUILTINS: dict[str, str] = {
    "command": "clawrec.agents.command:CommandAgent",
    "claude": "clawrec.agents.claude:ClaudeAgent",
    "replay": "clawrec.agents.replay:ReplayAgent",
    "openclaw": "clawrec.agents.openclaw:OpenClawAgent",
    "human": "clawrec.agents.human:HumanAgent",
    "null": "clawrec.agents.null:NullAgent",
    "random": "clawrec.agents.random:RandomAgent",
    "computer-use": "clawrec.agents.computer_use:ComputerUseAgent",
    "browser-use": "clawrec.agents.browser_use:BrowserUseAgent",
    "claude-code": "clawrec.agents.claude_code:ClaudeCodeAgent",
    "codex": "clawrec.agents.codex:CodexAgent",
}


class UnknownAgentError(AgentSetupError):
    """No built-in and no installed entry point has this name."""


def _entry_points() -> dict[str, metadata.EntryPoint]:
    return {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def available() -> dict[str, str]:
    """name → "module:attr" for every agent that can be chosen (built-ins win over entry points)."""
    found = {name: ep.value for name, ep in _entry_points().items()}
    found.update(BUILTINS)
    return dict(sorted(found.items()))


def _import(target: str) -> Any:
    module, _, attr = target.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split(".") if attr else []:
        obj = getattr(obj, part)
    return obj


def load_factory(name: str) -> Callable[[], Agent]:
    """The class (or factory) registered under `name`; UnknownAgentError lists what exists."""
    if name in BUILTINS:
        try:
            return _import(BUILTINS[name])
        except ModuleNotFoundError as exc:
            if exc.name and BUILTINS[name].startswith(exc.name):
                raise AgentSetupError(f"agent '{name}' is not available in this installation ({exc.name} missing)")
            raise
    eps = _entry_points()
    if name in eps:
        try:
            return eps[name].load()
        except Exception as exc:  # a broken plug-in must not look like a clawrec crash
            raise AgentSetupError(f"agent '{name}' ({eps[name].value}) failed to load: "
                                  f"{type(exc).__name__}: {exc}") from None
    raise UnknownAgentError(f"unknown agent '{name}'; choose one of: {', '.join(available())}")


def create_agent(name: str) -> Agent:
    agent = load_factory(name)()
    if not callable(getattr(agent, "run", None)):
        raise AgentSetupError(f"agent '{name}' has no run(ctx) method")
    return agent
