"""The demo scripts' `upload` step played through Playwright MCP (bench/agents.py: Claude Code and Codex on the jobs
task). Playwright MCP uploads in two tool calls: a click that opens the file chooser (the page's answer then holds a
"File chooser" modal state), then `browser_file_upload {paths}`. The shared plan counts one step for both: the upload
call is shown to the plan as a wait (a passive step), so the plan goes on with the next field.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tests.support.model_script import History, Script, ToolCall, Turn


def _task(h: History) -> str:
    """The conversation's key (its task message): concurrent runs of two agents keep their pending paths apart."""
    return next((m.text for m in h.messages if m.role == "user" and "Start at:" in m.text), "")


def clicks_for_uploads(script: Script, pending: dict[str, list[str]]) -> Script:
    """The OpenClaw-tool script with each `upload` answered as a click on the same ref (its paths kept in `pending`)."""
    def wrapped(request: dict[str, Any], h: History) -> Turn:
        turn = script(request, h)
        calls = []
        for c in turn.tool_calls:
            if c.arguments.get("action") == "upload":
                pending[_task(h)] = list(c.arguments.get("paths") or [])
                c = ToolCall(c.name, {"action": "act", "kind": "click", "ref": c.arguments.get("ref")}, c.id)
            calls.append(c)
        return replace(turn, tool_calls=calls) if turn.tool_calls else turn
    return wrapped


def uploads_via_mcp(script: Script, pending: dict[str, list[str]]) -> Script:
    """The for_mcp-wrapped script, answering an open file chooser with `browser_file_upload` of the pending paths."""
    def wrapped(request: dict[str, Any], h: History) -> Turn:
        results = [m for m in h.messages if m.role == "tool"]
        if results and "file chooser" in results[-1].text.lower() and pending.get(_task(h)):
            prefix = next(t[: -len("browser_snapshot")] for t in h.tools if t.endswith("browser_snapshot"))
            return Turn(tool_calls=[ToolCall(prefix + "browser_file_upload", {"paths": pending.pop(_task(h))})])
        messages = [replace(m, tool_calls=[ToolCall(c.name.replace("browser_file_upload", "browser_wait_for"),
                                                    {"time": 0.2}, c.id) if c.name.endswith("browser_file_upload")
                                           else c for c in m.tool_calls]) if m.tool_calls else m
                    for m in h.messages]
        return script(request, History(h.api, request, messages, h.exchanges))
    return wrapped
