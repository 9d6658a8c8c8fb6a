"""The shared demo scripts (tests/support/scripts, written for OpenClaw's `browser` tool) played to browser-use: the
plan runs on a conversation of its own whose snapshots come from a test-side ARIA oracle on the run's browser
(bench/screen_bridge.py's PlanOracle), and each page action it picks becomes browser-use actions on the index of the
same element in the state browser-use sent (by its id attribute, else its name: tests/support/browser_use_plan.py).

Moved here from bench/screen_bridge.py (which stays computer use's). Prefer tests/support/bu_demo.py: it needs no
oracle (every step is read off the element list, as a real model does). Clicks go by index: a coordinate click is
rescaled by browser-use from its 1400x850 screenshot space for claude-sonnet* model names and lands elsewhere.
"""

from __future__ import annotations

import json
import re
from typing import Any, Protocol

from tests.support.browser_use_plan import elements, find, output, state_text
from tests.support.model_script import History, Message, Script, ToolCall, Turn


class Oracle(Protocol):
    def snapshot(self) -> str: ...
    def describe(self, ref: str) -> tuple[str, str, str]: ...  # (id attribute, accessible name, tag)
    def option_label(self, ref: str, value: str) -> str: ...


def _kind(a: dict[str, Any]) -> str:
    return a.get("kind") if a.get("action") == "act" else a.get("action", "")


def bu_index(oracle: Oracle, state: str, ref: str) -> int | None:
    """browser-use's index of the element the plan means: by its id attribute, else its name (and tag)."""
    ident, name, tag = oracle.describe(ref)
    if ident:
        found = next((e.index for e in elements(state) if e.attrs.get("id") == ident), None)
        if found is not None:
            return found
    if not name:
        return None
    exact = find(state, name, tag=tag, exact=True)
    return exact if exact is not None else find(state, name, tag=tag)


def bu_actions(oracle: Oracle, state: str, a: dict[str, Any]) -> list[dict[str, Any]] | None:
    """browser-use actions for one OpenClaw `browser` call (None: its element is not in the state yet)."""
    kind = _kind(a)
    if kind == "navigate":
        return [{"navigate": {"url": a["url"], "new_tab": False}}]
    if kind == "wait":
        return [{"wait": {"seconds": 1}}]
    i = bu_index(oracle, state, a["ref"])
    if i is None:
        return None
    if kind == "click":
        return [{"click": {"index": i}}]
    if kind == "type":
        return [{"input": {"index": i, "text": a["text"], "clear": True}}] + (
            [{"send_keys": {"keys": "Enter"}}] if a.get("submit") else [])
    if kind == "select":
        return [{"select_dropdown": {"index": i, "text": oracle.option_label(a["ref"], a["values"][0])}}]
    if kind == "upload":
        return [{"upload_file": {"index": i, "path": a["paths"][0]}}]
    raise AssertionError(f"no browser-use action for {a}")


def bu_bridge(oracle: Oracle, script: Script) -> Script:
    """One run's browser-use script playing `script` (browser-use sends the whole state each time: one plan step per
    request; its task text is the plan's first message)."""
    mine: list[Message] = []

    def answer(request: dict[str, Any]) -> list[dict[str, Any]]:
        state = state_text(request)
        if not mine:
            task = re.search(r"<user_request>\s*(.*?)\s*</user_request>", state, re.S)
            mine.append(Message("user", task.group(1) if task else state))
        for _ in range(60):
            turn = script(request, History("anthropic", request, mine, []))
            if not turn.tool_calls:
                return [{"done": {"text": turn.text, "success": True}}]
            call = turn.tool_calls[0]
            cid = f"b{len(mine)}"
            acts = None if _kind(call.arguments) == "snapshot" else bu_actions(oracle, state, call.arguments)
            if _kind(call.arguments) != "snapshot" and acts is None:
                call, acts = ToolCall("browser", {"action": "act", "kind": "wait", "timeMs": 400}), [
                    {"wait": {"seconds": 1}}]
            result = oracle.snapshot() if acts is None else "ok"
            mine.extend([Message("assistant", tool_calls=[ToolCall("browser", call.arguments, cid)]),
                         Message("tool", result, tool_call_id=cid)])
            if acts is not None:
                return acts
        raise AssertionError("the plan asked for 60 snapshots in a row")

    def wrapped(request: dict[str, Any], h: History) -> Turn:
        out = output(answer(request), "next step")
        return Turn(tool_calls=[ToolCall("AgentOutput", out)]) if h.api == "anthropic" else Turn(text=json.dumps(out))

    return wrapped
