"""The demo-task model scripts played through Inspect's own offline provider (`mockllm/model`, custom_outputs).

Why mockllm and these scripts: Inspect cannot reach a model here; its mockllm provider is Inspect's own offline
stand-in (the real Model/generate path: usage, limits, transcript). The callable given as `custom_outputs` reads the
conversation Inspect sends (its ChatMessages, normalized like tests/support/model_script.py does for the wire
formats) and answers with the tool calls of the task's script (tests/support/scripts, through claude_plans'
translation: clawrec's Inspect tools are the claude agent's, `key` for `press`, Inspect's `submit` for `done`).
One model serves several tasks in one eval: the script is chosen by the task's instruction in the first message.
`alter` rewrites a call before it is sent (a wrong value on purpose).
"""

from __future__ import annotations

import itertools
from typing import Any, Callable

from inspect_ai.model import (ChatCompletionChoice, ChatMessageAssistant, ChatMessageSystem, ChatMessageTool,
                              ModelOutput, ModelUsage, get_model)
from inspect_ai.tool import ToolCall as InspectCall

from tests.pipeline.claude_plans import for_claude
from tests.support.model_script import History, Message, Script, ToolCall

TO_INSPECT = {"press": "key", "done": "submit"}
FROM_INSPECT = {v: k for k, v in TO_INSPECT.items()}
Alter = Callable[[ToolCall], ToolCall]


def _neutral(messages: list[Any]) -> list[Message]:
    """Inspect's ChatMessages as the scripts' neutral messages (system prompts dropped, tool names as claude's)."""
    out: list[Message] = []
    for m in messages:
        if isinstance(m, ChatMessageSystem):
            continue
        if isinstance(m, ChatMessageTool):
            out.append(Message("tool", m.error.message if m.error else m.text, tool_call_id=m.tool_call_id or ""))
        elif isinstance(m, ChatMessageAssistant):
            calls = [ToolCall(FROM_INSPECT.get(c.function, c.function), dict(c.arguments), c.id)
                     for c in m.tool_calls or []]
            out.append(Message("assistant", m.text, calls))
        else:
            out.append(Message(m.role, m.text))
    return out


def _inspect_call(call: ToolCall, ids: Any) -> InspectCall:
    args = dict(call.arguments)
    if call.name == "done":
        args = {"answer": str(args.get("summary", ""))}
    return InspectCall(id=call.id or f"call_{next(ids)}", function=TO_INSPECT.get(call.name, call.name),
                       arguments=args)


def scripted(scripts: dict[str, tuple[Script, Alter | None]], errors: list[str]) -> Callable[..., ModelOutput]:
    """mockllm's custom_outputs: the script whose key appears in the conversation's first user message."""
    ids = itertools.count(1)

    def output(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        neutral = _neutral(messages)
        first = next((m.text for m in neutral if m.role == "user"), "")
        chosen = [v for k, v in scripts.items() if k in first]
        try:
            assert len(chosen) == 1, f"no single script for the task: {first[:120]!r}"
            script, alter = chosen[0]
            turn = for_claude(script)({}, History("anthropic", {}, neutral, []))
        except Exception as exc:  # the test reads `errors`; the agent gets a plain answer and stops
            errors.append(f"{type(exc).__name__}: {exc}")
            out = ModelOutput.from_content("mockllm/model", f"script error: {exc}")
            out.usage = _usage(messages, out.message)
            return out
        calls = [alter(c) if alter else c for c in turn.tool_calls]
        message = ChatMessageAssistant(content=turn.text, model="mockllm/model", source="generate",
                                       tool_calls=[_inspect_call(c, ids) for c in calls] or None)
        return ModelOutput(model="mockllm/model", choices=[ChatCompletionChoice(
            message=message, stop_reason="tool_calls" if calls else "stop")], usage=_usage(messages, message))

    return output


def _usage(messages: list[Any], reply: ChatMessageAssistant) -> ModelUsage:
    """Token counts of the exchange (characters / 4). Given, so that mockllm does not count them with tiktoken,
    whose encoding it would download."""
    sent = sum(len(m.text) for m in messages) // 4
    got = (len(reply.text) + sum(len(str(c.arguments)) for c in reply.tool_calls or [])) // 4
    return ModelUsage(input_tokens=sent, output_tokens=got, total_tokens=sent + got)


def scripted_model(scripts: dict[str, tuple[Script, Alter | None]], errors: list[str]) -> Any:
    """An Inspect Model (mockllm/model) that plays `scripts` (see `scripted`)."""
    return get_model("mockllm/model", custom_outputs=scripted(scripts, errors))
