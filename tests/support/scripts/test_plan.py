"""The planner: snapshot before each action, none within `together`, poll while a target is missing, then final."""

from __future__ import annotations

import pytest

from tests.support.model_script import History, Message, ToolCall, Turn
from tests.support.scripts.plan import click, navigate, plan, together, type_

PAGE = '- textbox "Name" [ref=e1]\n- textbox "Email" [ref=e2]\n- button "Send" [ref=e3]'
PROMPT = Message("user", "Do it.\n\nStart at: http://127.0.0.1:1/\n")


def play(script, page: str, limit: int = 40) -> list[dict]:
    """Drive `script` like OpenClaw would: every call answered, snapshots answered with `page`."""
    messages, calls = [PROMPT], []
    for i in range(limit):
        turn = script({}, History("anthropic", {}, list(messages), []))
        if not turn.tool_calls:
            return calls + [{"final": turn.text}]
        for n, c in enumerate(turn.tool_calls):
            c.id = f"c{i}-{n}"
            calls.append(c.arguments)
        messages.append(Message("assistant", "", turn.tool_calls))
        for c in turn.tool_calls:
            messages.append(Message("tool", page if c.arguments.get("action") == "snapshot" else "ok",
                                    tool_call_id=c.id))
    raise AssertionError("no final answer")


def test_plan_snapshots_between_steps_but_not_within_together():
    script = plan(navigate(), together(type_("textbox", "Name", "Alex"), type_("textbox", "Email", "a@x")),
                  click("button", "Send"), final="Sent.")
    assert play(script, PAGE) == [
        {"action": "navigate", "url": "http://127.0.0.1:1/"}, {"action": "snapshot"},
        {"action": "act", "kind": "type", "ref": "e1", "text": "Alex"},
        {"action": "act", "kind": "type", "ref": "e2", "text": "a@x"}, {"action": "snapshot"},
        {"action": "act", "kind": "click", "ref": "e3"}, {"final": "Sent."}]


def test_missing_target_polls_then_fails_loudly():
    script = plan(navigate(), click("button", "Nowhere"), max_polls=2)
    with pytest.raises(AssertionError, match="action 1 never found its target"):
        play(script, PAGE)
    assert isinstance(script({}, History("anthropic", {}, [PROMPT], [])), Turn)
