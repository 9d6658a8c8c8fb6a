"""A scripted LLM server on loopback speaking the real wire protocols, so agents' real code paths can run offline.

Why: no LLM API is reachable here; agents (OpenClaw, the anthropic SDK, …) must still run their own HTTP/SSE code.
This is test support only (never imported by product code).

API
    from tests.support.model_server import ModelServer
    from tests.support.model_script import Turn, ToolCall, History, steps, browser, find_ref

    def script(request_json: dict, history: History) -> Turn: ...   # or steps(Turn(...), lambda h: Turn(...), ...)
    with ModelServer(script) as srv:
        srv.base_url                  # http://127.0.0.1:PORT  (ANTHROPIC_BASE_URL / OPENAI_BASE_URL style)
        srv.openai_base_url           # http://127.0.0.1:PORT/v1 (for clients that append /chat/completions)
        ...run the agent...
        srv.requests                  # [RecordedRequest(path, method, headers, body, api, status, turn, history)]
        srv.inject_error(529, count=1)   # the next request(s) get this HTTP status with the API's error body
        srv.script_errors             # exceptions raised by the script (each answered with HTTP 500)

Routes: Anthropic `POST /v1/messages` (and /messages); OpenAI chat `POST /v1/chat/completions` (and
/chat/completions); OpenAI Responses `POST /v1/responses` (and /responses); `GET /v1/models`. Each answers as
SSE when the body says `"stream": true` (Anthropic: message_start, content_block_start/delta(text_delta,
input_json_delta)/stop, message_delta, message_stop; OpenAI chat: chunks + usage chunk + [DONE]; Responses:
response.created … response.completed), else one JSON document. Usage tokens are estimated from sizes (~4 chars a
token; an Anthropic image block as the API bills it, width x height / 750). Recorded header names are lower-cased;
authorization/x-api-key/cookie values are redacted.

A script is `(request_json, history) -> Turn`; `history` (model_script.History) gives the conversation normalized
across the three APIs: `.step` (assistant turns so far, stable across retries), `.messages`, `.last_tool_result()`,
`.find_ref(role, name)` (reads `- textbox "From" [ref=e12]` out of the latest snapshot), `.tools`. A Turn has
`text`, `tool_calls` and optionally `error` (an HTTP status to answer instead). The demo tasks' scripts are in
tests/support/scripts/ (plan.py: a snapshot-driven planner over OpenClaw's `browser` tool; tests/pipeline/
claude_plans.py replays them to the `claude` agent's tools).
"""

from __future__ import annotations

import asyncio
import base64
import json
import struct
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.support.model_script import History, Script, ToolCall, Turn, normalize

SECRET_HEADERS = {"authorization", "x-api-key", "cookie", "api-key", "proxy-authorization"}
ROUTES = {
    "/v1/messages": "anthropic", "/messages": "anthropic",
    "/v1/chat/completions": "openai-chat", "/chat/completions": "openai-chat",
    "/v1/responses": "openai-responses", "/responses": "openai-responses",
}


@dataclass
class RecordedRequest:
    path: str
    method: str
    headers: dict[str, str]
    body: Any
    api: str
    status: int = 200
    turn: Turn | None = None
    history: History | None = None
    t: float = field(default_factory=time.time)


def _tokens(value: Any) -> int:
    """~4 characters a token; a base64 image counts as Anthropic bills it (width x height / 750, at most 1600),
    not by its text: a screenshot is ~1,400 tokens, not the ~30,000 its base64 would be."""
    images: list[int] = []

    def strip(v: Any) -> Any:
        if isinstance(v, list):
            return [strip(x) for x in v]
        if not isinstance(v, dict):
            return v
        src = v.get("source")
        if v.get("type") == "image" and isinstance(src, dict) and isinstance(src.get("data"), str):
            head = base64.b64decode(src["data"][:32] + "==")[:24]
            w, h = struct.unpack(">II", head[16:24]) if head[:4] == b"\x89PNG" else (1092, 1092)
            images.append(min(1600, max(1, w * h // 750)))
            return {**v, "source": {**src, "data": ""}}
        return {k: strip(x) for k, x in v.items()}

    text = value if isinstance(value, str) else json.dumps(strip(value), default=str)
    return max(1, len(text) // 4) + sum(images)


def _sse(event: str | None, data: Any) -> bytes:
    head = f"event: {event}\n" if event else ""
    payload = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    return f"{head}data: {payload}\n\n".encode()


def _error_body(api: str, status: int, message: str) -> dict[str, Any]:
    if api == "anthropic":
        kind = {529: "overloaded_error", 429: "rate_limit_error", 400: "invalid_request_error"}.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    return {"error": {"message": message, "type": "server_error" if status >= 500 else "invalid_request_error",
                      "code": None, "param": None}}


# --- encoders: one Turn → (json document | list of SSE frames) per API ------------------------------------------

def anthropic_message(turn: Turn, model: str, in_tok: int) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text else []
    content += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in turn.tool_calls]
    return {"id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message", "role": "assistant", "model": model,
            "content": content, "stop_reason": turn.stop_reason, "stop_sequence": None,
            "usage": {"input_tokens": in_tok, "output_tokens": _tokens(content),
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}


def anthropic_stream(turn: Turn, model: str, in_tok: int) -> list[bytes]:
    msg = anthropic_message(turn, model, in_tok)
    start = {**msg, "content": [], "stop_reason": None, "usage": {**msg["usage"], "output_tokens": 1}}
    frames = [_sse("message_start", {"type": "message_start", "message": start}), _sse("ping", {"type": "ping"})]
    for i, block in enumerate(msg["content"]):
        if block["type"] == "text":
            frames.append(_sse("content_block_start", {"type": "content_block_start", "index": i,
                                                       "content_block": {"type": "text", "text": ""}}))
            text = block["text"]
            for j in range(0, len(text), 40):
                frames.append(_sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                           "delta": {"type": "text_delta", "text": text[j:j + 40]}}))
        else:
            frames.append(_sse("content_block_start", {"type": "content_block_start", "index": i, "content_block": {
                "type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}}))
            raw = json.dumps(block["input"])
            for j in range(0, len(raw), 40):
                frames.append(_sse("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {
                    "type": "input_json_delta", "partial_json": raw[j:j + 40]}}))
        frames.append(_sse("content_block_stop", {"type": "content_block_stop", "index": i}))
    frames.append(_sse("message_delta", {"type": "message_delta", "delta": {"stop_reason": msg["stop_reason"],
                   "stop_sequence": None}, "usage": {"output_tokens": msg["usage"]["output_tokens"]}}))
    frames.append(_sse("message_stop", {"type": "message_stop"}))
    return frames


def _chat_calls(turn: Turn) -> list[dict[str, Any]]:
    return [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
            for c in turn.tool_calls]


def chat_completion(turn: Turn, model: str, in_tok: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
    if turn.tool_calls:
        message["tool_calls"] = _chat_calls(turn)
    out_tok = _tokens(message)
    return {"id": f"chatcmpl-{uuid.uuid4().hex[:24]}", "object": "chat.completion", "created": int(time.time()),
            "model": model, "choices": [{"index": 0, "message": message, "logprobs": None,
                                         "finish_reason": "tool_calls" if turn.tool_calls else "stop"}],
            "usage": {"prompt_tokens": in_tok, "completion_tokens": out_tok, "total_tokens": in_tok + out_tok}}


def chat_stream(turn: Turn, model: str, in_tok: int, include_usage: bool) -> list[bytes]:
    doc = chat_completion(turn, model, in_tok)
    base = {"id": doc["id"], "object": "chat.completion.chunk", "created": doc["created"], "model": model}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        return _sse(None, {**base, "choices": [{"index": 0, "delta": delta, "logprobs": None,
                                                "finish_reason": finish}]})

    frames = [chunk({"role": "assistant", "content": ""})]
    for j in range(0, len(turn.text), 40):
        frames.append(chunk({"content": turn.text[j:j + 40]}))
    for i, call in enumerate(_chat_calls(turn)):
        frames.append(chunk({"tool_calls": [{"index": i, "id": call["id"], "type": "function",
                                             "function": {"name": call["function"]["name"], "arguments": ""}}]}))
        raw = call["function"]["arguments"]
        for j in range(0, len(raw), 40):
            frames.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": raw[j:j + 40]}}]}))
    frames.append(chunk({}, doc["choices"][0]["finish_reason"]))
    if include_usage:
        frames.append(_sse(None, {**base, "choices": [], "usage": doc["usage"]}))
    frames.append(_sse(None, "[DONE]"))
    return frames


def namespaced(name: str, namespaces: tuple[str, ...]) -> dict[str, str]:
    """A call to a tool inside a Responses `namespace` tool (Codex's `mcp__playwright`) names both: a script says
    `mcp__playwright__browser_click`, the wire says namespace `mcp__playwright`, name `browser_click`."""
    for ns in namespaces:
        if name.startswith(ns + "__"):
            return {"namespace": ns, "name": name[len(ns) + 2:]}
    return {"name": name}


def responses_doc(turn: Turn, model: str, in_tok: int, namespaces: tuple[str, ...] = ()) -> dict[str, Any]:
    output: list[dict[str, Any]] = []
    if turn.text:
        output.append({"id": f"msg_{uuid.uuid4().hex[:16]}", "type": "message", "status": "completed",
                       "role": "assistant", "content": [{"type": "output_text", "text": turn.text,
                                                         "annotations": []}]})
    for c in turn.tool_calls:
        output.append({"id": f"fc_{uuid.uuid4().hex[:16]}", "type": "function_call", "status": "completed",
                       "call_id": c.id, **namespaced(c.name, namespaces), "arguments": json.dumps(c.arguments)})
    out_tok = _tokens(output)
    return {"id": f"resp_{uuid.uuid4().hex[:24]}", "object": "response", "created_at": int(time.time()),
            "status": "completed", "model": model, "output": output, "error": None, "incomplete_details": None,
            "usage": {"input_tokens": in_tok, "output_tokens": out_tok, "total_tokens": in_tok + out_tok,
                      "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}}}


def responses_stream(turn: Turn, model: str, in_tok: int, namespaces: tuple[str, ...] = ()) -> list[bytes]:
    doc = responses_doc(turn, model, in_tok, namespaces)
    seq = iter(range(10_000))
    frames: list[bytes] = []

    def emit(kind: str, **data: Any) -> None:
        frames.append(_sse(kind, {"type": kind, "sequence_number": next(seq), **data}))

    pending = {**doc, "status": "in_progress", "output": [], "usage": None}
    emit("response.created", response=pending)
    emit("response.in_progress", response=pending)
    for i, item in enumerate(doc["output"]):
        if item["type"] == "message":
            text = item["content"][0]["text"]
            emit("response.output_item.added", output_index=i, item={**item, "status": "in_progress", "content": []})
            part = {"type": "output_text", "text": "", "annotations": []}
            emit("response.content_part.added", item_id=item["id"], output_index=i, content_index=0, part=part)
            for j in range(0, len(text), 40):
                emit("response.output_text.delta", item_id=item["id"], output_index=i, content_index=0,
                     delta=text[j:j + 40])
            emit("response.output_text.done", item_id=item["id"], output_index=i, content_index=0, text=text)
            emit("response.content_part.done", item_id=item["id"], output_index=i, content_index=0,
                 part={**part, "text": text})
        else:
            emit("response.output_item.added", output_index=i,
                 item={**item, "status": "in_progress", "arguments": ""})
            emit("response.function_call_arguments.delta", item_id=item["id"], output_index=i,
                 delta=item["arguments"])
            emit("response.function_call_arguments.done", item_id=item["id"], output_index=i,
                 arguments=item["arguments"])
        emit("response.output_item.done", output_index=i, item=item)
    emit("response.completed", response=doc)
    return frames


# --- the server ------------------------------------------------------------------------------------------------

class ModelServer:
    """Runs an aiohttp app on 127.0.0.1:0 in a background thread (usable from sync and async tests alike)."""

    def __init__(self, script: Script, *, model: str | None = None, chunk_delay: float = 0.0) -> None:
        self.script = script
        self.model = model
        self.chunk_delay = chunk_delay
        self.requests: list[RecordedRequest] = []
        self.script_errors: list[BaseException] = []
        self._errors: list[int] = []
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.base_url}/v1"

    def inject_error(self, status: int = 500, count: int = 1) -> None:
        """The next `count` model requests are answered with `status` and the API's own error body."""
        with self._lock:
            self._errors.extend([status] * count)

    def model_requests(self, api: str | None = None) -> list[RecordedRequest]:
        return [r for r in self.requests if r.api != "other" and (api is None or r.api == api)]

    # lifecycle
    def start(self) -> "ModelServer":
        ready = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                loop.run_until_complete(self._start())
            except BaseException as exc:  # reported to the caller of start()
                failure.append(exc)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self._runner.cleanup())
            loop.close()

        self._thread = threading.Thread(target=run, name="model-server", daemon=True)
        self._thread.start()
        ready.wait(10)
        if failure or not self.port:
            raise RuntimeError(f"model server did not start: {failure[0] if failure else 'timeout'}")
        return self

    def stop(self) -> None:
        if self._loop and self._thread and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)

    def __enter__(self) -> "ModelServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def _start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/v1/models", self._models)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]

    async def _models(self, request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": self.model or "scripted", "object": "model"}]})

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        raw = await request.text()
        try:
            body: Any = json.loads(raw) if raw else {}
        except ValueError:
            body = raw
        headers = {k.lower(): ("<redacted>" if k.lower() in SECRET_HEADERS else v) for k, v in request.headers.items()}
        api = ROUTES.get(request.path, "other") if request.method == "POST" else "other"
        rec = RecordedRequest(request.path, request.method, headers, body, api)
        with self._lock:
            earlier = list(self.requests)
            self.requests.append(rec)
            injected = self._errors.pop(0) if self._errors and api != "other" else None
        if api == "other" or not isinstance(body, dict):
            rec.status = 404
            return web.json_response(_error_body(api, 404, f"no route {request.method} {request.path}"), status=404)
        if injected:
            rec.status = injected
            return web.json_response(_error_body(api, injected, f"injected HTTP {injected}"), status=injected)
        history = History(api, body, normalize(api, body), earlier)
        rec.history = history
        try:
            turn = self.script(body, history)
            if not isinstance(turn, Turn):
                raise TypeError(f"script returned {type(turn).__name__}, not Turn")
        except Exception as exc:  # the agent sees a 500 and the test sees the exception
            self.script_errors.append(exc)
            rec.status = 500
            return web.json_response(_error_body(api, 500, f"script error: {exc!r}"), status=500)
        prefix = "toolu_" if api == "anthropic" else "call_"
        turn.tool_calls = [ToolCall(c.name, c.arguments, c.id or f"{prefix}{uuid.uuid4().hex[:20]}")
                           for c in turn.tool_calls]
        rec.turn = turn
        if turn.error:
            rec.status = turn.error
            return web.json_response(_error_body(api, turn.error, f"scripted HTTP {turn.error}"), status=turn.error)
        model = self.model or str(body.get("model") or "scripted")
        in_tok = _tokens(body)
        namespaces = tuple(t["name"] for t in body.get("tools") or [] if t.get("type") == "namespace")
        if not body.get("stream"):
            if api == "openai-responses":
                return web.json_response(responses_doc(turn, model, in_tok, namespaces))
            doc = {"anthropic": anthropic_message, "openai-chat": chat_completion}[api](turn, model, in_tok)
            return web.json_response(doc)
        if api == "anthropic":
            frames = anthropic_stream(turn, model, in_tok)
        elif api == "openai-chat":
            frames = chat_stream(turn, model, in_tok, bool((body.get("stream_options") or {}).get("include_usage")))
        else:
            frames = responses_stream(turn, model, in_tok, namespaces)
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await resp.prepare(request)
        for frame in frames:
            await resp.write(frame)
            if self.chunk_delay:
                await asyncio.sleep(self.chunk_delay)
        await resp.write_eof()
        return resp
