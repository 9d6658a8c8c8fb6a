"""A scripted model for browser-use: reads the element list browser-use sends (`[15]<input aria-label=… />`, text on
the tab-indented lines below) and answers with its structured output (`AgentOutput`: thoughts + actions by index).

Why its own planner: browser-use sends no tool results and no ARIA refs; each request is the whole state again (the
task, the agent's history as text, the page's interactive elements). Over Anthropic the answer is a forced
`AgentOutput` tool call; over OpenAI chat it is the JSON document of the response_format schema.

    script = bu_plan(type_in("Write a comment on Maria", "Congrats", submit=True), click("Post"), final="Done")
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any, Callable

from tests.support.model_script import History, Script, ToolCall, Turn

ELEMENT = re.compile(r"^(?:\|SHADOW\(\w+\)\|)?\s*\*?\[(\d+)\]<(\w+)([^\n]*)$")
Action = Callable[[str], "list[dict[str, Any]] | None"]  # the state text → browser-use actions, or None: not yet


def state_text(request: dict[str, Any]) -> str:
    """The newest `<browser_state>` the request holds (Anthropic content blocks or OpenAI messages)."""
    texts = []
    for m in request.get("messages") or []:
        content = m.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts += [b.get("text", "") for b in content if isinstance(b, dict)]
    found = [t for t in texts if "<browser_state>" in t]
    return found[-1] if found else ""


def elements(state: str) -> list[tuple[int, str, str]]:
    """(index, tag, everything said about it: attributes + its text lines) in page order."""
    out: list[tuple[int, str, str]] = []
    for line in state.split("Interactive elements:", 1)[-1].splitlines():
        m = ELEMENT.match(line.strip("\t") if not line.startswith("\t") else "")
        if m:
            out.append((int(m[1]), m[2], m[3]))
        elif out and line.startswith("\t"):
            index, tag, said = out[-1]
            out[-1] = (index, tag, f"{said} {line.strip()}")
    return out


def find(state: str, text: str, tag: str | None = None, exact: bool = False) -> int | None:
    for index, t, said in elements(state):
        if tag and t != tag:
            continue
        words = said.split(" />", 1)
        label = words[1].strip() if len(words) > 1 else ""
        if (label == text) if exact else (text.lower() in said.lower()):
            return index
    return None


def click(text: str, tag: str | None = None, exact: bool = False) -> Action:
    return lambda s: [{"click": {"index": i}}] if (i := find(s, text, tag, exact)) is not None else None


def type_in(text: str, value: str, submit: bool = False) -> Action:
    def act(s: str) -> list[dict[str, Any]] | None:
        i = find(s, text)
        if i is None:
            return None
        return [{"input": {"index": i, "text": value, "clear": True}}] + (
            [{"send_keys": {"keys": "Enter"}}] if submit else [])
    return act


def select(text: str, option: str) -> Action:
    return lambda s: [{"select_dropdown": {"index": i, "text": option}}] if (i := find(s, text)) is not None else None


def output(actions: list[dict[str, Any]], goal: str) -> dict[str, Any]:
    return {"thinking": f"Next: {goal}", "evaluation_previous_goal": "Success", "memory": goal, "next_goal": goal,
            "action": actions}


def bu_plan(*actions: Action, final: str = "Done.", max_waits: int = 25) -> Script:
    """Play `actions` in order, one request each (a wait while the target is not on the page), then `done`."""
    lock = threading.Lock()
    state = {"next": 0, "waits": 0}

    def script(request: dict[str, Any], h: History) -> Turn:
        with lock:
            page = state_text(request)
            if state["next"] >= len(actions):
                out = output([{"done": {"text": final, "success": True}}], "report")
            else:
                acts = actions[state["next"]](page)
                if acts is None:
                    state["waits"] += 1
                    if state["waits"] > max_waits:
                        raise AssertionError(f"action {state['next']} never found its target in:\n{page[-3000:]}")
                    acts = [{"wait": {"seconds": 1}}]
                else:
                    state["next"], state["waits"] = state["next"] + 1, 0
                out = output(acts, f"step {state['next']}")
        if h.api == "anthropic":
            return Turn(tool_calls=[ToolCall("AgentOutput", out)])
        return Turn(text=json.dumps(out))

    return script
