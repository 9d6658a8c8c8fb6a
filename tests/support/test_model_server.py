"""The scripted model server speaks the wire protocols real clients parse (the anthropic SDK; raw OpenAI SSE)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import anthropic
import pytest

from tests.support.model_script import History, ToolCall, Turn, find_ref, steps
from tests.support.model_server import ModelServer

SNAPSHOT = ('- generic [ref=e2]:\n  - textbox "From" [ref=e12]\n  - textbox "To city" [ref=e13]\n'
            '  - button "Search" [ref=e14]')


def post(url: str, body: dict, headers: dict | None = None) -> tuple[int, str]:
    req = urllib.request.Request(url, json.dumps(body).encode(), {"content-type": "application/json",
                                                                  **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def sse_data(text: str) -> list:
    return [line[6:] for line in text.splitlines() if line.startswith("data: ")]


def type_into_from(h: History) -> Turn:
    return Turn(text="Typing.", tool_calls=[ToolCall("browser", {"action": "act", "kind": "type",
                                                                 "ref": h.find_ref("textbox", "From"), "text": "JFK"})])


def test_find_ref_reads_aria_snapshot_lines():
    assert find_ref(SNAPSHOT, "textbox", "From") == "e12"
    assert find_ref(SNAPSHOT, "textbox", "to", exact=False) == "e13"
    assert find_ref(SNAPSHOT, "textbox", "to", exact=True) == ""
    assert find_ref(SNAPSHOT, "button") == "e14"
    assert find_ref(SNAPSHOT, "link", "Home") == ""


def test_anthropic_sdk_streams_text_and_tool_use_that_depend_on_the_tool_result():
    script = steps(Turn(tool_calls=[ToolCall("browser", {"action": "snapshot"})]), type_into_from)
    with ModelServer(script) as srv:
        client = anthropic.Anthropic(api_key="sk-secret", base_url=srv.base_url, max_retries=0)
        tools = [{"name": "browser", "description": "b", "input_schema": {"type": "object"}}]
        messages = [{"role": "user", "content": "Fly me from JFK."}]
        with client.messages.stream(model="claude-x", max_tokens=100, messages=messages, tools=tools) as stream:
            first = stream.get_final_message()
        assert first.stop_reason == "tool_use" and first.content[0].input == {"action": "snapshot"}
        messages += [{"role": "assistant", "content": [b.model_dump() for b in first.content]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": first.content[0].id,
                                                   "content": [{"type": "text", "text": SNAPSHOT}]}]}]
        with client.messages.stream(model="claude-x", max_tokens=100, messages=messages, tools=tools) as stream:
            events = [e.type for e in stream]
            second = stream.get_final_message()
        third = client.messages.create(model="claude-x", max_tokens=100, messages=messages + [
            {"role": "assistant", "content": [b.model_dump() for b in second.content]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": second.content[1].id,
                                          "content": "ok"}]}])
    assert second.content[0].text == "Typing." and second.content[1].input["ref"] == "e12"
    assert second.usage.input_tokens > 10 and second.usage.output_tokens > 0
    assert events[0] == "message_start" and events[-1] == "message_stop" and "input_json" in events
    assert third.content[0].text == "Done." and third.stop_reason == "end_turn"
    assert [r.history.step for r in srv.requests] == [0, 1, 2]
    # this SDK sends the key as a Bearer token (older ones as x-api-key): either way it is redacted
    sent = srv.requests[0].headers
    assert "<redacted>" in (sent.get("x-api-key"), sent.get("authorization")) and "sk-secret" not in repr(srv.requests)
    assert srv.requests[0].body["stream"] is True


def test_openai_chat_streaming_and_plain_with_tool_calls():
    with ModelServer(steps(Turn(tool_calls=[ToolCall("browser", {"action": "navigate", "url": "http://x/"})]))) as srv:
        body = {"model": "gpt-x", "stream": True, "stream_options": {"include_usage": True},
                "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "go"}]}
        status, text = post(f"{srv.openai_base_url}/chat/completions", body, {"authorization": "Bearer sk-1"})
        status2, plain = post(f"{srv.base_url}/chat/completions", {**body, "stream": False, "messages": [
            *body["messages"], {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "browser", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "page loaded"}]})
    assert status == 200 and status2 == 200
    chunks = sse_data(text)
    assert chunks[-1] == "[DONE]"
    parsed = [json.loads(c) for c in chunks[:-1]]
    args = "".join(tc["function"].get("arguments", "") for p in parsed for ch in p["choices"]
                   for tc in ch["delta"].get("tool_calls", []))
    assert json.loads(args) == {"action": "navigate", "url": "http://x/"}
    assert parsed[-2]["choices"][0]["finish_reason"] == "tool_calls" and parsed[-1]["usage"]["total_tokens"] > 0
    doc = json.loads(plain)
    assert doc["choices"][0]["message"]["content"] == "Done." and doc["choices"][0]["finish_reason"] == "stop"
    assert srv.requests[1].history.last_tool_result() == "page loaded"
    assert srv.requests[0].headers["authorization"] == "<redacted>"


def test_openai_responses_stream_ends_with_completed_response():
    with ModelServer(steps(Turn(text="Hi", tool_calls=[ToolCall("browser", {"action": "snapshot"})]))) as srv:
        status, text = post(f"{srv.base_url}/v1/responses", {"model": "m", "stream": True, "input": "hello"})
    events = [json.loads(d) for d in sse_data(text)]
    assert status == 200 and events[0]["type"] == "response.created" and events[-1]["type"] == "response.completed"
    output = events[-1]["response"]["output"]
    assert output[0]["content"][0]["text"] == "Hi" and output[1]["name"] == "browser"
    assert [e["sequence_number"] for e in events] == list(range(len(events)))


@pytest.mark.parametrize("status", [500, 529])
def test_injected_errors_use_each_apis_error_body(status):
    with ModelServer(steps()) as srv:
        srv.inject_error(status, count=2)
        a = post(f"{srv.base_url}/v1/messages", {"model": "m", "messages": []})
        o = post(f"{srv.base_url}/v1/chat/completions", {"model": "m", "messages": []})
        ok = post(f"{srv.base_url}/v1/messages", {"model": "m", "messages": []})
    assert a[0] == o[0] == status and ok[0] == 200
    assert json.loads(a[1])["error"]["type"] == ("overloaded_error" if status == 529 else "api_error")
    assert "message" in json.loads(o[1])["error"]
    assert [r.status for r in srv.requests] == [status, status, 200]


def test_script_exception_is_a_500_and_is_kept_for_the_test():
    def broken(request, history):
        raise KeyError("no such ref")

    with ModelServer(broken) as srv:
        status, _ = post(f"{srv.base_url}/v1/messages", {"model": "m", "messages": []})
        missing, _ = post(f"{srv.base_url}/v2/unknown", {})
    assert status == 500 and isinstance(srv.script_errors[0], KeyError) and missing == 404
