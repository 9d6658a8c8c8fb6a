"""clawrec's LLM judge speaking through Inspect's model API (a grader model: `-T grader=openai/gpt-5`, any
provider Inspect has, its retries, its usage accounting).

Why an adapter and not a second judge: the judge's conversation (evaluator/llm_judge.py: the rubric, the tools
over both run directories, the checked structured verdict, the cache) stays one piece of code. It talks to "a
client" with the anthropic SDK's shape (`messages.create(**kwargs)` → content blocks, usage, stop_reason); this
client turns each request into Inspect ChatMessages + ToolInfos, calls the grader's `generate` on the eval's event
loop (the judge itself runs in a worker thread: it is blocking code), and turns the reply back.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from inspect_ai.model import (ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageTool,
                              ChatMessageUser, ContentImage, ContentText, GenerateConfig, Model, get_model)
from inspect_ai.tool import ToolCall, ToolFunction, ToolInfo, ToolParams

TIMEOUT_S = 600.0  # one grader request, retries included (Inspect's own retry policy runs inside)


def _content(blocks: Any) -> str | list[Any]:
    if isinstance(blocks, str):
        return blocks
    out: list[Any] = []
    for b in blocks or []:
        if b.get("type") == "text":
            out.append(ContentText(text=b["text"]))
        elif b.get("type") == "image":
            src = b["source"]
            out.append(ContentImage(image=f"data:{src['media_type']};base64,{src['data']}"))
    return out


def to_inspect(system: str | None, messages: list[dict[str, Any]]) -> list[ChatMessage]:
    """An Anthropic Messages conversation as Inspect chat messages (tool results become tool messages)."""
    out: list[ChatMessage] = [ChatMessageSystem(content=system)] if system else []
    names: dict[str, str] = {}
    for m in messages:
        content = m["content"]
        if m["role"] == "assistant":
            blocks = [content] if isinstance(content, str) else content
            text = "\n".join(b["text"] for b in blocks if isinstance(b, dict) and b.get("type") == "text")
            calls = [ToolCall(id=b["id"], function=b["name"], arguments=b.get("input") or {})
                     for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"]
            names.update({c.id: c.function for c in calls})
            out.append(ChatMessageAssistant(content=text, tool_calls=calls or None))
            continue
        if isinstance(content, list) and any(b.get("type") == "tool_result" for b in content):
            for b in content:
                if b.get("type") == "tool_result":
                    out.append(ChatMessageTool(content=_content(b.get("content")), tool_call_id=b["tool_use_id"],
                                               function=names.get(b["tool_use_id"])))
            continue
        out.append(ChatMessageUser(content=_content(content)))
    return out


def _reply(output: Any) -> Any:
    """Inspect's ModelOutput in the shape the judge reads from the anthropic SDK."""
    msg = output.message
    blocks = [SimpleNamespace(type="text", text=msg.text)] if msg.text else []
    blocks += [SimpleNamespace(type="tool_use", id=c.id, name=c.function, input=c.arguments)
               for c in msg.tool_calls or []]
    u = output.usage
    usage = SimpleNamespace(input_tokens=u.input_tokens if u else 0, output_tokens=u.output_tokens if u else 0,
                            cache_read_input_tokens=(u.input_tokens_cache_read or 0) if u else 0,
                            cache_creation_input_tokens=(u.input_tokens_cache_write or 0) if u else 0)
    return SimpleNamespace(content=blocks, usage=usage,
                           stop_reason="tool_use" if msg.tool_calls else output.stop_reason)


class InspectClient:
    """The slice of anthropic.Anthropic the LLM judge uses, over an Inspect model (see the module docstring)."""

    def __init__(self, model: Model, loop: asyncio.AbstractEventLoop) -> None:
        self.model, self.loop = model, loop
        self.base_url = f"inspect:{model}"
        self.messages = self

    def create(self, *, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
               tool_choice: dict[str, Any] | None = None, system: str | None = None, max_tokens: int = 2048,
               extra_body: dict[str, Any] | None = None, **_: Any) -> Any:
        infos = [ToolInfo(name=t["name"], description=t.get("description", ""),
                          parameters=ToolParams.model_validate(t.get("input_schema") or {}))
                 for t in tools or []]
        choice: Any = ToolFunction(name=tool_choice["name"]) if (tool_choice or {}).get("type") == "tool" else "auto"
        config = GenerateConfig(max_tokens=max_tokens, temperature=(extra_body or {}).get("temperature"))
        call = self.model.generate(to_inspect(system, messages), tools=infos, tool_choice=choice, config=config)
        return _reply(asyncio.run_coroutine_threadsafe(call, self.loop).result(TIMEOUT_S))


def judge_with_grader(run: Any, spec: Any, kind: str, grader: str | Model, loop: asyncio.AbstractEventLoop,
                      notes: list[str]) -> Any:
    """The LLM judge (kind llm) or payload + LLM (kind both) of RUN, the LLM being `grader` through Inspect; writes
    verdict.json as `clawrec judge` does. Blocking: call it from a worker thread, `loop` being the eval's."""
    from evaluator.judge import combine, open_reference
    from evaluator.llm_judge import LLMJudge, LLMJudgeConfig
    from evaluator.payload_judge import judge_payload
    from evaluator.verdict import write_verdict

    model = grader if isinstance(grader, Model) else get_model(grader)
    ref = open_reference(spec.reference if spec is not None else None, notes)
    if ref is not None and ref.path.resolve() == Path(run.path).resolve():
        ref = None
    config = LLMJudgeConfig(model=str(model), cache_dir=None)
    llm = LLMJudge(config, client=InspectClient(model, loop)).judge(run, spec, ref)
    verdict = combine(judge_payload(run, spec, ref), llm) if kind == "both" else llm
    verdict.notes = list(dict.fromkeys(notes + verdict.notes))
    write_verdict(run.path, verdict)
    return verdict

