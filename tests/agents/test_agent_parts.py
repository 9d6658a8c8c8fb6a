"""The pure parts of the agents people bring, without a browser: what they read from their programs and check of the
model's actions (each asserted against a hand-computed value)."""

from __future__ import annotations

import asyncio

import pytest

from clawrec.agents.browser_use import usage_record
from clawrec.agents.claude_code import ClaudeCodeAgent
from clawrec.agents.codex import toml
from clawrec.agents.mcp_cli import Events
from clawrec.agents.program import JsonlTail
from clawrec.agents.xinput import InputError, XDisplay


def test_jsonl_tail_hands_over_whole_lines_only(tmp_path):
    path = tmp_path / "events.jsonl"
    tail = JsonlTail(path)
    assert tail.new() == []  # not written yet
    path.write_bytes(b'{"a": 1}\n{"b": 2')
    assert tail.new() == [{"a": 1}]
    with open(path, "ab") as f:
        f.write(b'}\nnot json\n[1]\n')
    assert tail.new() == [{"b": 2}]  # the rest of the half line; junk and non-objects dropped


def test_claude_code_usage_is_summed_once_per_reply():
    events, seen = Events(), []
    agent = ClaudeCodeAgent()
    reply = {"id": "msg_1", "usage": {"input_tokens": 100, "output_tokens": 7, "cache_read_input_tokens": 20}}
    for block in ({"type": "text", "text": "hi"}, {"type": "tool_use", "id": "t1", "name": "x", "input": {}}):
        agent.on_event(None, {"type": "assistant", "message": {**reply, "content": [block]}}, events,
                       lambda *a, **k: seen.append(a[0]))
    agent.on_event(None, {"type": "assistant", "message": {"id": "msg_2", "usage": {"input_tokens": 50,
                                                                                     "output_tokens": 3},
                                                           "content": []}}, events, lambda *a, **k: None)
    rec = agent.usage_record("anthropic/claude-sonnet-4-5", events)
    assert (rec["input_tokens"], rec["output_tokens"], rec["cache_read_tokens"], rec["requests"]) == (150, 10, 20, 2)
    assert rec["cost_usd"] == round((150 * 3 + 10 * 15 + 20 * 0.3) / 1e6, 6)
    assert events.calls == 1 and seen == ["assistant", "tool_call"]


def test_browser_use_usage_counts_cached_prompt_tokens_once():
    rec = usage_record("openai/gpt-4o", {"total_prompt_tokens": 1000, "total_prompt_cached_tokens": 400,
                                         "total_completion_tokens": 50, "entry_count": 3})
    assert (rec["input_tokens"], rec["cache_read_tokens"], rec["output_tokens"], rec["requests"]) == (600, 400, 50, 3)


def test_codex_settings_are_toml_inline_values():
    assert toml({"command": "/n o/node", "args": ["a", "--x"], "required": True, "n": 60}) == \
        '{command = "/n o/node", args = ["a", "--x"], required = true, n = 60}'


@pytest.mark.parametrize("coordinate", [[1280, 10], [-1, 5], [5], "10,10", [1.5, None]])
def test_computer_actions_outside_the_screen_are_refused(coordinate):
    screen = XDisplay(":0", 1280, 800)
    with pytest.raises(InputError):
        asyncio.run(screen.act("left_click", {"coordinate": coordinate}))


def test_computer_actions_need_their_arguments():
    screen = XDisplay(":0", 1280, 800)
    for action, params in (("type", {}), ("key", {"text": ""}), ("mouse_move", {}), ("zoom", {}),
                           ("scroll", {"scroll_direction": "sideways"})):
        with pytest.raises(InputError):
            asyncio.run(screen.act(action, params))
