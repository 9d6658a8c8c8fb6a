"""A planner script for OpenClaw's `browser` tool: a list of page actions, each done on a fresh snapshot.

Why not fixed step numbers: pages change asynchronously (autocomplete lists, SPA views), so after every action the
planner takes a snapshot, and an action whose target is not in that snapshot yet waits and snapshots again.
Progress is counted from the conversation itself (assistant turns with a call other than snapshot/wait), so a retried
model request gets the same answer. An action is `history -> Turn | None` (None: "not on the page yet");
`together(...)` plays the fields of one form one after the other on the same snapshot.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from tests.support.model_script import History, Script, Turn
from tests.support.model_script import browser as call

Action = Callable[[History], "Turn | None"]
Value = Any  # a constant, or `history -> value`
PASSIVE = {"snapshot", "wait"}


def _kind(arguments: dict[str, Any]) -> str:
    return arguments.get("kind") if arguments.get("action") == "act" else arguments.get("action", "")


def _value(v: Value, h: History) -> Any:
    return v(h) if callable(v) else v


def plan(*actions: "Action | together", final: str = "Done.", max_polls: int = 12) -> Script:
    """Play `actions` in order, a snapshot before each (but within `together`); then answer `final`."""
    steps: list[tuple[Action, bool]] = []  # (action, may reuse the previous snapshot)
    for item in actions:
        group = item.actions if isinstance(item, together) else (item,)
        steps += [(a, i > 0) for i, a in enumerate(group)]

    def script(request: dict[str, Any], h: History) -> Turn:
        turns = [m.tool_calls for m in h.messages if m.role == "assistant" and m.tool_calls]
        done = sum(1 for t in turns if any(_kind(c.arguments) not in PASSIVE for c in t))
        calls = [c for t in turns for c in t]
        last = _kind(calls[-1].arguments) if calls else ""
        if done >= len(steps):
            return Turn(text=final)
        action, reuse = steps[done]
        if calls and last not in PASSIVE and not reuse:
            return call(action="snapshot")
        turn = action(h)
        if turn is not None:
            return turn
        polls = 0
        for c in reversed(calls):
            if _kind(c.arguments) not in PASSIVE:
                break
            polls += 1
        if polls >= 2 * max_polls:
            raise AssertionError(f"action {done} never found its target; last snapshot:\n{latest_snapshot(h)}")
        return call(action="act", kind="wait", timeMs=400) if last == "snapshot" else call(action="snapshot")

    return script


def prompt_value(key: str) -> Callable[[History], str]:
    """A `- key: value` line of the prompt (the user's info as the OpenClaw adapter writes it)."""

    def get(h: History) -> str:
        m = re.search(rf"^- {re.escape(key)}: (.*)$", h.messages[0].text, re.M)
        assert m, f"no '{key}' in the prompt"
        return m.group(1).strip()

    return get


def start_url(h: History) -> str:
    m = re.search(r"^Start at: (\S+)", h.messages[0].text, re.M)
    assert m, "no start URL in the prompt"
    return m.group(1)


def uploadable(suffix: str) -> Callable[[History], str]:
    def get(h: History) -> str:
        for line in h.messages[0].text.splitlines():
            if line.startswith("- /") and line.strip().endswith(suffix):
                return line[2:].strip()
        raise AssertionError(f"no {suffix} file in the prompt")

    return get


def navigate(url: Value = start_url) -> Action:
    return lambda h: call(action="navigate", url=_value(url, h))


def latest_snapshot(h: History) -> str:
    """The text of the newest `snapshot` result (wait results and action results say nothing about the page)."""
    snapshots = {c.id for m in h.messages for c in m.tool_calls if _kind(c.arguments) == "snapshot"}
    for m in reversed(h.messages):
        if m.role == "tool" and m.tool_call_id in snapshots:
            return m.text
    return ""


def _on(role: str, name: str | None, exact: bool, make: Callable[[str, History], Turn]) -> Action:
    def act(h: History) -> Turn | None:
        ref = h.find_ref(role, name, text=latest_snapshot(h), exact=exact)
        return make(ref, h) if ref else None

    return act


def click(role: str, name: str | None = None, exact: bool = False) -> Action:
    return _on(role, name, exact, lambda ref, h: call(action="act", kind="click", ref=ref))


def type_(role: str, name: str, text: Value, exact: bool = False, submit: bool = False) -> Action:
    extra = {"submit": True} if submit else {}
    return _on(role, name, exact, lambda ref, h: call(action="act", kind="type", ref=ref, text=str(_value(text, h)),
                                                      **extra))


def select(role: str, name: str, *values: str, exact: bool = False) -> Action:
    return _on(role, name, exact, lambda ref, h: call(action="act", kind="select", ref=ref, values=list(values)))


def upload(role: str, name: str, path: Value, exact: bool = False) -> Action:
    return _on(role, name, exact, lambda ref, h: call(action="upload", ref=ref, paths=[_value(path, h)]))


def when(text: str, action: Action) -> Action:
    """`action`, but only once the latest snapshot shows `text` (e.g. a confirmation toast)."""
    return lambda h: action(h) if text.lower() in latest_snapshot(h).lower() else None


class together:  # noqa: N801 - reads as a plan step
    """Actions on one form, played one turn each WITHOUT a snapshot in between (typing does not change refs).

    Not parallel tool calls: OpenClaw runs those concurrently, and two `type` actions at once garble each other.
    """

    def __init__(self, *actions: Action) -> None:
        self.actions = actions
