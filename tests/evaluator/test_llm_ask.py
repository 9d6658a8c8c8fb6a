"""LLMJudge.ask: the one Messages request the single-question users (sop --llm, the rubric judge) share — its error
line starts with the caller's name, and it counts only the token kinds the caller's usage record keeps."""

from __future__ import annotations

import socket

import pytest

from evaluator.errors import JudgeError
from evaluator.llm_judge import LLMJudge, LLMJudgeConfig
from tests.support.model_script import Turn
from tests.support.model_server import ModelServer


def _llm(base_url: str) -> LLMJudge:
    return LLMJudge(LLMJudgeConfig(model="claude-sonnet-4-6", base_url=base_url, api_key="sk-test", max_retries=0,
                                   cache_dir=None))


def _request() -> dict:
    return {"model": "claude-sonnet-4-6", "max_tokens": 64, "messages": [{"role": "user", "content": "hello there"}]}


def test_counts_the_requests_and_only_the_token_kinds_the_usage_keeps():
    with ModelServer(lambda body, history: Turn(text="an answer")) as srv:
        llm = _llm(srv.base_url)
        short = {"requests": 0, "input_tokens": 0, "output_tokens": 0}
        full = {**short, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
        resp = llm.ask("sop --llm", short, **_request())
        llm.ask("rubric judge", full, **_request())
        llm.ask("rubric judge", full, **_request())
    assert "".join(b.text for b in resp.content if b.type == "text") == "an answer"
    assert set(short) == {"requests", "input_tokens", "output_tokens"}  # nothing added to a short record
    assert short["requests"] == 1 and short["input_tokens"] > 0 and short["output_tokens"] > 0
    assert full["requests"] == 2 and full["input_tokens"] == 2 * short["input_tokens"]


def test_an_http_error_is_one_line_naming_the_caller_the_server_and_the_api_error():
    with ModelServer(lambda body, history: Turn(text="never")) as srv:
        srv.inject_error(400)
        usage = {"requests": 0}
        with pytest.raises(JudgeError) as ei:
            _llm(srv.base_url).ask("rubric judge", usage, **_request())
    assert str(ei.value) == (f"rubric judge: {srv.base_url} answered HTTP 400: invalid_request_error: "
                             "injected HTTP 400")
    assert usage == {"requests": 0}


def test_a_server_that_refuses_the_connection_is_one_line():
    with socket.socket() as sock:  # bound, never listening: the kernel refuses every connection to it
        sock.bind(("127.0.0.1", 0))
        base_url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        with pytest.raises(JudgeError) as ei:
            _llm(base_url).ask("sop --llm", {"requests": 0}, **_request())
    message = str(ei.value)
    assert message.startswith(f"sop --llm: cannot reach {base_url}") and "\n" not in message
