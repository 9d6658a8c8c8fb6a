"""The built-in `claude` agent through the real anthropic SDK against the scripted Anthropic server (base URL)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

from clawrec.agents.base import AgentContext, TaskInfo
from clawrec.agents.claude import ClaudeAgent
from tests.pipeline.tinysite import TinySite
from tests.support.model_script import ToolCall, Turn, steps
from tests.support.model_server import ModelServer

USER = {"first_name": "Alex", "last_name": "Doe", "email": "alex@example.com"}


def ctx_for(tmp_path: Path, cdp_url: str, url: str, **options) -> tuple[AgentContext, list]:
    messages: list = []
    task = TaskInfo(id="tiny-signup", instruction="Sign me up for the Pro plan.", start_url=url, user=USER,
                    limits={"time_s": 60, "steps": 20})
    ctx = AgentContext(cdp_url=cdp_url, task=task, run_dir=tmp_path, model="anthropic/claude-test",
                       log=lambda role, content, **f: messages.append({"role": role, "content": content, **f}),
                       options=options)
    return ctx, messages


def fill_form(h) -> Turn:
    return Turn(text="Filling the form.", tool_calls=[
        ToolCall("type", {"ref": h.find_ref("textbox", "Full name"), "text": "Alex Doe"}),
        ToolCall("type", {"ref": h.find_ref("textbox", "Email"), "text": "alex@example.com"}),
        ToolCall("select", {"ref": h.find_ref("combobox", "Plan"), "values": ["pro"]}),
        ToolCall("click", {"ref": h.find_ref("button", "Sign up")}),
    ])


def test_claude_completes_the_task_through_the_sdk(browser, tmp_path, monkeypatch):
    with TinySite() as site, ModelServer(steps(
            Turn(tool_calls=[ToolCall("navigate", {"url": site.url})]),
            Turn(tool_calls=[ToolCall("snapshot")]),
            fill_form,
            Turn(tool_calls=[ToolCall("screenshot")]),
            Turn(tool_calls=[ToolCall("done", {"summary": "Signed up for Pro."})]))) as srv:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-secret")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", srv.base_url)
        ctx, messages = ctx_for(tmp_path, browser.http_url, site.url)
        result = asyncio.run(ClaudeAgent().run(ctx))
        deadline = time.monotonic() + 10
        while not site.posts("/api/signup") and time.monotonic() < deadline:
            time.sleep(0.05)
        posts = site.posts("/api/signup")
        requests = srv.model_requests("anthropic")
    assert result.status == "ok" and result.message == "Signed up for Pro.", result
    assert result.steps == 8 and result.usage["requests"] == 5
    # usage for the manifest: the SDK's token counts summed over the 5 requests; no price for an unknown model
    assert result.usage["input_tokens"] > 0 and result.usage["output_tokens"] > 0
    assert result.usage["model"] == "claude-test" and result.usage["cost_usd"] is None
    assert [json.loads(p["body"]) for p in posts] == [{"name": "Alex Doe", "email": "alex@example.com",
                                                       "plan": "pro"}]
    first = requests[0].body
    assert first["model"] == "claude-test" and {t["name"] for t in first["tools"]} >= {"snapshot", "click", "done"}
    assert "Sign me up for the Pro plan." in json.dumps(first["messages"]) and "alex@example.com" in json.dumps(first)
    assert {k.lower(): v for k, v in requests[0].headers.items()}.get("authorization") == "<redacted>"  # key sent
    # The screenshot went to the model as a real JPEG image block.
    last = requests[-1].body["messages"][-1]["content"][0]
    image = last["content"][0]
    assert image["type"] == "image" and image["source"]["media_type"] == "image/jpeg"
    assert len(image["source"]["data"]) > 1000
    roles = [m["role"] for m in messages]
    assert roles[:2] == ["system", "user"] and roles.count("tool_call") == 8 == roles.count("tool_result")
    calls = [m for m in messages if m["role"] == "tool_call"]
    assert [c["tool"] for c in calls] == ["navigate", "snapshot", "type", "type", "select", "click", "screenshot",
                                          "done"]
    snap = next(m for m in messages if m["role"] == "tool_result" and m["tool"] == "snapshot")
    assert 'textbox "Full name" [ref=' in snap["content"]
    assert snap["snapshot"]["format"] == "aria" and snap["snapshot"]["url"].startswith(site.url)  # for the report
    assert all("base64" not in json.dumps(m) for m in messages)


def test_bad_ref_is_a_tool_error_the_model_sees_and_step_limit_stops(browser, tmp_path, monkeypatch):
    with TinySite() as site, ModelServer(steps(after=Turn(tool_calls=[ToolCall("click", {"ref": "e999"})]))) as srv:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", srv.base_url)
        ctx, messages = ctx_for(tmp_path, browser.http_url, site.url, max_steps=3)
        result = asyncio.run(ClaudeAgent().run(ctx))
        requests = srv.model_requests("anthropic")
    assert result.message == "step limit reached (3)" and result.steps == 3
    errors = [m for m in messages if m["role"] == "tool_result"]
    assert len(errors) == 3 and all(m["is_error"] for m in errors)
    tool_result = requests[1].body["messages"][-1]["content"][0]
    assert tool_result["is_error"] is True and "e999" in json.dumps(tool_result)


def test_api_failure_is_an_agent_error(browser, tmp_path, monkeypatch):
    with ModelServer(steps()) as srv:
        srv.inject_error(529, count=5)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", srv.base_url)
        ctx, messages = ctx_for(tmp_path, browser.http_url, "about:blank", max_retries=1)
        result = asyncio.run(ClaudeAgent().run(ctx))
        assert len(srv.model_requests("anthropic")) == 2  # the SDK retried once
    assert result.status == "error" and ("Overloaded" in result.message or "529" in result.message)
    assert messages[-1]["role"] == "system" and "model API error" in messages[-1]["content"]
