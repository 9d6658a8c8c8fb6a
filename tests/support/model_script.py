"""What a scripted model sees and answers: Turn, ToolCall, History (the request, normalized), and script helpers.

Why normalized: the same script should drive an agent over Anthropic Messages, OpenAI chat completions or the OpenAI
Responses API, so a script reads `history.messages` (role user|assistant|tool, text, tool_calls) instead of each
wire format. See model_server.py for the server and the full API.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Union


@dataclass
class ToolCall:
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str = ""  # filled in by the server when empty


@dataclass
class Turn:
    """One model reply: text and/or tool calls. `error` makes the server answer that HTTP status instead (500, 529)."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    error: int | None = None

    @property
    def stop_reason(self) -> str:
        return "tool_use" if self.tool_calls else "end_turn"


@dataclass
class Message:
    """A wire message in neutral form. Tool results have role "tool", the result text and the call's id."""

    role: str
    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str = ""


def _text_of(content: Any) -> str:
    """Text of a content field in any of the three formats (string, list of parts, nested tool-result content)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(t for t in (_text_of(p) for p in content) if t)
    if isinstance(content, dict):
        if "text" in content and isinstance(content["text"], str):
            return content["text"]
        if "content" in content:
            return _text_of(content["content"])
        if "output" in content:
            return _text_of(content["output"])
    return ""


def _args(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw or "{}")
        return value if isinstance(value, dict) else {"_": value}
    except (TypeError, ValueError):
        return {"_raw": raw}


def normalize(api: str, body: dict[str, Any]) -> list[Message]:
    """The conversation of a request body as neutral messages (system prompts dropped)."""
    out: list[Message] = []
    if api == "anthropic":
        for m in body.get("messages") or []:
            content = m.get("content")
            if isinstance(content, str):
                out.append(Message(m.get("role", "user"), content))
                continue
            texts, calls = [], []
            for block in content or []:
                kind = block.get("type")
                if kind == "tool_result":
                    out.append(Message("tool", _text_of(block.get("content")),
                                       tool_call_id=block.get("tool_use_id", "")))
                elif kind == "tool_use":
                    calls.append(ToolCall(block.get("name", ""), _args(block.get("input")), block.get("id", "")))
                elif kind == "text":
                    texts.append(block.get("text", ""))
            if texts or calls:
                out.append(Message(m.get("role", "user"), "\n".join(texts), calls))
    elif api == "openai-chat":
        for m in body.get("messages") or []:
            role = m.get("role")
            if role in ("system", "developer"):
                continue
            calls = [ToolCall(c["function"]["name"], _args(c["function"].get("arguments")), c.get("id", ""))
                     for c in m.get("tool_calls") or []]
            out.append(Message(role, _text_of(m.get("content")), calls, m.get("tool_call_id", "")))
    elif api == "openai-responses":
        items = body.get("input")
        if isinstance(items, str):
            items = [{"role": "user", "content": items}]
        for it in items or []:
            kind = it.get("type", "message")
            if kind == "function_call":
                name = f"{it['namespace']}__{it.get('name', '')}" if it.get("namespace") else it.get("name", "")
                call = ToolCall(name, _args(it.get("arguments")), it.get("call_id", ""))
                if out and out[-1].role == "assistant":
                    out[-1].tool_calls.append(call)
                else:
                    out.append(Message("assistant", "", [call]))
            elif kind == "function_call_output":
                out.append(Message("tool", _text_of(it.get("output")), tool_call_id=it.get("call_id", "")))
            elif kind == "message" and it.get("role") not in ("system", "developer"):
                out.append(Message(it.get("role", "user"), _text_of(it.get("content"))))
    return out


def tool_names(api: str, body: dict[str, Any]) -> list[str]:
    names = []
    for t in body.get("tools") or []:
        if t.get("type") == "namespace":  # Responses API tool namespaces (Codex's MCP servers): ns__tool
            names += [f"{t['name']}__{sub.get('name', '')}" for sub in t.get("tools") or []]
            continue
        names.append(t.get("name") or (t.get("function") or {}).get("name") or "")
    return names


@dataclass
class History:
    """Everything a script may look at: this request (raw and normalized) and the exchanges served before it."""

    api: str                      # anthropic | openai-chat | openai-responses
    request: dict[str, Any]
    messages: list[Message]
    exchanges: list[Any]          # earlier RecordedRequest objects of this server (all conversations)

    @property
    def step(self) -> int:
        """How many assistant turns this conversation already holds (a retried request gets the same step)."""
        return sum(1 for m in self.messages if m.role == "assistant")

    @property
    def tools(self) -> list[str]:
        return tool_names(self.api, self.request)

    def tool_results(self) -> list[str]:
        """Every tool result's text in this conversation, oldest first."""
        return [m.text for m in self.messages if m.role == "tool"]

    def last_tool_result(self) -> str:
        results = self.tool_results()
        return results[-1] if results else ""

    def last_user_text(self) -> str:
        for m in reversed(self.messages):
            if m.role == "user" and m.text:
                return m.text
        return ""

    def find_ref(self, role: str, name: str | None = None, *, text: str | None = None, exact: bool = False) -> str:
        """The ref of `- role "name" [ref=eN]` in the newest tool result holding one (or in `text`); '' if none."""
        for result in [text] if text is not None else reversed(self.tool_results()):
            ref = find_ref(result, role, name, exact=exact)
            if ref:
                return ref
        return ""


def find_ref(snapshot: str, role: str, name: str | None = None, *, exact: bool = False) -> str:
    """Find an element ref in an ARIA snapshot line such as `- textbox "From" [ref=e12]` (case-insensitive name)."""
    for line in snapshot.splitlines():
        m = re.search(rf'(?:^|[\s-]){re.escape(role)}(?:\s+"((?:[^"\\]|\\.)*)")?[^\n]*?\[ref=([A-Za-z0-9_-]+)\]',
                      line)
        if not m:
            continue
        if name is None:
            return m.group(2)
        got = (m.group(1) or "").lower()
        if (got == name.lower()) if exact else (name.lower() in got):
            return m.group(2)
    return ""


Step = Union[Turn, Callable[[History], Turn]]
Script = Callable[[dict[str, Any], History], Turn]


def steps(*items: Step, after: Step | None = None) -> Script:
    """A script playing items[history.step] (a Turn or `history -> Turn`), then `after` (default: "Done.")."""

    def script(request: dict[str, Any], history: History) -> Turn:
        item = items[history.step] if history.step < len(items) else (after or Turn(text="Done."))
        return item(history) if callable(item) else item

    return script


def browser(**arguments: Any) -> Turn:
    """A Turn calling OpenClaw's `browser` tool, e.g. browser(action="snapshot")."""
    return Turn(tool_calls=[ToolCall("browser", arguments)])
