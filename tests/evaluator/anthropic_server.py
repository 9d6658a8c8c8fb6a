"""A scripted Anthropic Messages server on 127.0.0.1:0 for the LLM-judge tests (test support, never product code).

The real anthropic SDK talks to it through `base_url`. A script `(request_body, server) -> reply` decides each
answer from what it received (tool results, images): a reply is {"content": [...blocks]} or {"status": 500|529}.
Every request is logged (headers with secrets redacted, JSON body, the status answered). Input tokens are estimated
the documented way (text ≈ 4 chars a token, an image ≈ width×height/750) so the judge's reported count can be
checked against what the server billed.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import threading
import uuid
from typing import Any, Callable

from aiohttp import web
from PIL import Image

Script = Callable[[dict[str, Any], "ScriptedAnthropic"], dict[str, Any]]
ERRORS = {500: "api_error", 529: "overloaded_error", 400: "invalid_request_error", 401: "authentication_error"}


def tool_use(name: str, input: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_{uuid.uuid4().hex[:20]}", "name": name, "input": input}


def reply(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"content": list(blocks)}


def image_tokens(data_b64: str) -> int:
    w, h = Image.open(io.BytesIO(base64.b64decode(data_b64))).size
    return max(1, (w * h) // 750)


def count_tokens(body: dict[str, Any]) -> int:
    """Estimated input tokens of a Messages request (system + tools + messages; images by their size)."""
    images: list[str] = []

    def strip(v: Any) -> Any:
        if isinstance(v, dict):
            if v.get("type") == "base64" and "data" in v:
                images.append(v["data"])
                return {k: x for k, x in v.items() if k != "data"}
            return {k: strip(x) for k, x in v.items()}
        if isinstance(v, list):
            return [strip(x) for x in v]
        return v

    text = json.dumps(strip({k: body.get(k) for k in ("system", "tools", "messages")}), ensure_ascii=False)
    return len(text) // 4 + sum(image_tokens(d) for d in images)


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool_result blocks of the last user message."""
    last = body["messages"][-1]
    if last["role"] != "user" or not isinstance(last["content"], list):
        return []
    return [b for b in last["content"] if b.get("type") == "tool_result"]


def result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(c.get("text", "") for c in content or [] if c.get("type") == "text")


class ScriptedAnthropic:
    """Start with `with ScriptedAnthropic(script) as srv:`; `srv.base_url`, `srv.requests`."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self.state: dict[str, Any] = {}
        self.base_url = ""
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._runner: web.AppRunner | None = None

    async def _handle(self, request: web.Request) -> web.Response:
        body = await request.json()
        headers = {k.lower(): ("[redacted]" if k.lower() in ("x-api-key", "authorization") else v)
                   for k, v in request.headers.items()}
        entry = {"headers": headers, "body": body, "status": 200}
        self.requests.append(entry)
        try:
            out = self.script(body, self)
        except Exception as exc:  # a broken script must show up as a failure, not hang the SDK
            out = {"status": 500, "message": f"script error: {exc!r}"}
            self.state.setdefault("script_errors", []).append(repr(exc))
        status = out.get("status", 200)
        entry["status"] = status
        if status != 200:
            err = {"type": "error", "error": {"type": ERRORS.get(status, "api_error"),
                                              "message": out.get("message", f"scripted HTTP {status}")}}
            return web.json_response(err, status=status, headers={"retry-after-ms": "20"})
        content = out["content"]
        in_tokens = count_tokens(body)
        entry["input_tokens"] = in_tokens
        msg = {"id": f"msg_{uuid.uuid4().hex[:20]}", "type": "message", "role": "assistant",
               "model": body.get("model"), "content": content,
               "stop_reason": "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn",
               "stop_sequence": None,
               "usage": {"input_tokens": in_tokens, "output_tokens": max(1, len(json.dumps(content)) // 4),
                         "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}
        return web.json_response(msg, headers={"request-id": f"req_{uuid.uuid4().hex[:12]}"})

    async def _start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/messages", self._handle)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.base_url = f"http://127.0.0.1:{port}"

    def __enter__(self) -> "ScriptedAnthropic":
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=30)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(timeout=30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=30)
        self._loop.close()
