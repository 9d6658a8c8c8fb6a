"""The demo-task model scripts (tests/support/scripts, written for OpenClaw's one `browser` tool) played to the
built-in `claude` agent, whose tools are separate (snapshot, click, type, …).

Why translate instead of writing the tasks twice: one list of page actions per demo task drives both agents. The
planner sees the conversation as if the agent had OpenClaw's tool; its answers are turned into claude tool calls.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tests.support.model_script import History, Script, ToolCall, Turn


def to_browser(call: ToolCall) -> ToolCall:
    """A claude tool call as OpenClaw's `browser` call (what the planner expects to see in the history)."""
    a = dict(call.arguments)
    if call.name in ("snapshot", "navigate"):
        args = {"action": call.name, **a}
    elif call.name == "upload":
        args = {"action": "upload", "ref": a.get("ref"), "paths": [a.get("file")]}
    elif call.name == "wait":
        args = {"action": "act", "kind": "wait", "timeMs": a.get("ms")}
    elif call.name in ("click", "type", "select", "press", "scroll"):
        args = {"action": "act", "kind": call.name, **a}
    else:
        args = {"action": call.name, **a}
    return ToolCall("browser", args, call.id)


def to_claude(call: ToolCall) -> ToolCall:
    """An OpenClaw `browser` call as the claude tool call the model answers with."""
    a = dict(call.arguments)
    action = a.pop("action", "")
    if action == "act":
        kind = a.pop("kind")
        if kind == "wait":
            return ToolCall("wait", {"ms": int(a.get("timeMs") or 500)})
        if kind == "type":
            return ToolCall("type", {k: v for k, v in a.items() if k in ("ref", "text", "submit")})
        if kind == "select":
            return ToolCall("select", {"ref": a["ref"], "values": a["values"]})
        return ToolCall(kind, {k: v for k, v in a.items() if k == "ref"})
    if action == "upload":
        return ToolCall("upload", {"ref": a["ref"], "file": a["paths"][0]})
    return ToolCall(action, a)


def for_claude(script: Script) -> Script:
    """Wrap an OpenClaw-tool script so that it drives the claude agent's tool set; `done` ends the task."""

    def wrapped(request: dict[str, Any], h: History) -> Turn:
        messages = [replace(m, tool_calls=[to_browser(c) for c in m.tool_calls]) if m.tool_calls else m
                    for m in h.messages]
        turn = script(request, History(h.api, request, messages, h.exchanges))
        if not turn.tool_calls and turn.error is None:  # the planner's final answer
            return Turn(tool_calls=[ToolCall("done", {"summary": turn.text})])
        return replace(turn, tool_calls=[to_claude(c) for c in turn.tool_calls])

    return wrapped


__all__ = ["for_claude", "to_browser", "to_claude"]
