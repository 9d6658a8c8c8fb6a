"""The demo-task model scripts (tests/support/scripts, written for OpenClaw's one `browser` tool) played to an agent
whose browser is Playwright MCP (Claude Code, Codex): `browser_snapshot`, `browser_click {element, target}`, ….

Why translate: one list of page actions per demo task drives every agent (as tests/pipeline/claude_plans.py does for
the `claude` agent). Playwright MCP's snapshot has the same `[ref=eN]` lines. The CLI's name for an MCP tool
(`mcp__playwright__browser_click`, …) is read from the tools the request offers.

Two plan steps take two MCP calls, and the translation stays stateless (it reads only the conversation, so retried
and concurrent requests get the same answer): an `upload` is a click that opens the file chooser, whose `element`
text carries the paths, then `browser_file_upload` of those paths (shown to the plan as a wait); a `tabs` step
(`{"action": "tabs", "op": "select", "index": N}`) is `browser_tabs`, e.g. to work in a popup.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from tests.support.model_script import History, Script, ToolCall, Turn

SNAPSHOT = "browser_snapshot"
UPLOAD = "file chooser for "  # the `element` text of an upload's click, followed by its paths as JSON


def prefix_of(tools: list[str]) -> str:
    for name in tools:
        if name.endswith(SNAPSHOT):
            return name[: -len(SNAPSHOT)]
    raise AssertionError(f"no Playwright MCP snapshot tool among {tools}")


def to_browser(call: ToolCall, prefix: str) -> ToolCall:
    """An MCP call as OpenClaw's `browser` call (what the planner expects to see in the history)."""
    name, a = call.name[len(prefix):] if call.name.startswith(prefix) else call.name, dict(call.arguments)
    ref = a.get("target", a.get("ref"))
    if name == SNAPSHOT:
        args: dict[str, Any] = {"action": "snapshot"}
    elif name == "browser_navigate":
        args = {"action": "navigate", "url": a.get("url")}
    elif name in ("browser_wait_for", "browser_file_upload"):  # an upload's second call: passive for the plan
        args = {"action": "act", "kind": "wait", "timeMs": int(float(a.get("time") or 0.5) * 1000)}
    elif name == "browser_click" and str(a.get("element", "")).startswith(UPLOAD):
        args = {"action": "upload", "ref": ref, "paths": json.loads(a["element"][len(UPLOAD):])}
    elif name == "browser_click":
        args = {"action": "act", "kind": "click", "ref": ref}
    elif name == "browser_type":
        args = {"action": "act", "kind": "type", "ref": ref, "text": a.get("text"),
                **({"submit": True} if a.get("submit") else {})}
    elif name == "browser_select_option":
        args = {"action": "act", "kind": "select", "ref": ref, "values": a.get("values")}
    elif name == "browser_tabs":
        args = {"action": "tabs", "op": a.get("action"), **({"index": a["index"]} if "index" in a else {})}
    else:
        args = {**a, "action": name}
    return ToolCall("browser", args, call.id)


def to_mcp(call: ToolCall, prefix: str) -> ToolCall:
    """An OpenClaw `browser` call as the Playwright MCP call the model answers with."""
    a = dict(call.arguments)
    action = a.pop("action", "")
    ref = a.get("target", a.get("ref"))
    if action == "act":
        kind = a.pop("kind")
        if kind == "wait":
            return ToolCall(prefix + "browser_wait_for", {"time": max(0.2, int(a.get("timeMs") or 500) / 1000)})
        if kind == "type":
            return ToolCall(prefix + "browser_type", {"element": f"element {ref}", "target": ref, "text": a["text"],
                                                      **({"submit": True} if a.get("submit") else {})})
        if kind == "select":
            return ToolCall(prefix + "browser_select_option", {"element": f"element {ref}", "target": ref,
                                                               "values": a["values"]})
        return ToolCall(prefix + "browser_click", {"element": f"element {ref}", "target": ref})
    if action == "upload":
        return ToolCall(prefix + "browser_click", {"element": UPLOAD + json.dumps(a["paths"]), "target": ref})
    if action == "tabs":
        return ToolCall(prefix + "browser_tabs", {"action": a["op"], **({"index": a["index"]} if "index" in a
                                                                          else {})})
    if action == "snapshot":
        return ToolCall(prefix + SNAPSHOT, {})
    if action == "navigate":
        return ToolCall(prefix + "browser_navigate", {"url": a["url"]})
    raise AssertionError(f"no Playwright MCP tool for {call.arguments}")


def chooser_answer(h: History, prefix: str) -> Turn | None:
    """`browser_file_upload` when the last call was an upload's click and the page now waits on its file chooser."""
    calls = [c for m in h.messages if m.role == "assistant" for c in m.tool_calls]
    last = calls[-1] if calls else None
    if (last is None or last.name != prefix + "browser_click" or not str(last.arguments.get("element", ""))
            .startswith(UPLOAD) or "file chooser" not in h.last_tool_result().lower()):
        return None
    paths = json.loads(last.arguments["element"][len(UPLOAD):])
    return Turn(tool_calls=[ToolCall(prefix + "browser_file_upload", {"paths": paths})])


def for_mcp(script: Script) -> Script:
    """Wrap an OpenClaw-tool script so that it drives Playwright MCP tools; its final answer ends the task."""

    def wrapped(request: dict[str, Any], h: History) -> Turn:
        if not any(t.endswith(SNAPSHOT) for t in h.tools):  # a side request of the CLI (a title, a summary)
            return Turn(text="Browsing task.")
        prefix = prefix_of(h.tools)
        chooser = chooser_answer(h, prefix)
        if chooser:
            return chooser
        messages = [replace(m, tool_calls=[to_browser(c, prefix) for c in m.tool_calls]) if m.tool_calls else m
                    for m in h.messages]
        task = [m for m in messages if m.role == "user" and "Start at:" in m.text][:1]  # Codex sends context first
        messages = task + [m for m in messages if m.role != "user" or m not in task]
        turn = script(request, History(h.api, request, messages, h.exchanges))
        if not turn.tool_calls:
            return turn
        return replace(turn, tool_calls=[to_mcp(c, prefix) for c in turn.tool_calls])

    return wrapped


__all__ = ["for_mcp", "prefix_of", "to_browser", "to_mcp"]
