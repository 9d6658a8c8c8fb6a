"""The LLM judge's tools on real run directories: bounded, line-numbered, fenced, errors as tool errors."""

from __future__ import annotations

from evaluator.judge_tools import FENCE, RunTools
from rundir.reader import RunDir
from tests.evaluator.helpers import RUNS

AGENT = RUNS / "real/travel/r01-correct"


def _tools(**kw):
    return RunTools(RunDir(AGENT), RunDir(RUNS / "real/travel/reference"), **kw)


def test_actions_are_bounded_and_cite_lines():
    content, err = _tools().call("list_actions", {"run": "agent", "start_seq": 1, "end_seq": 500})
    text = content[0]["text"]
    assert not err and "actions seq 1..40" in text and text.count("\nline ") <= 40
    assert f'<{FENCE} run="agent" source="actions.jsonl">' in text


def test_http_search_and_payloads():
    t = _tools()
    content, err = t.call("search_http", {"run": "agent", "query": "/api/bookings", "method": "post"})
    assert not err and "INTERCEPTED" in content[0]["text"] and "1 matching requests" in content[0]["text"]
    content, _ = t.call("search_http", {"run": "agent", "limit": 500})
    assert "first 20 shown" in content[0]["text"]
    content, _ = t.call("get_payloads", {"run": "reference"})
    assert '"flight_id":"SK344"' in content[0]["text"] and "line 1:" in content[0]["text"]


def test_screenshot_budget_and_errors():
    t = _tools(max_screenshots=1)
    content, err = t.call("get_screenshot", {"run": "agent", "seq": 1})
    assert not err and content[1]["type"] == "image"
    content, err = t.call("get_screenshot", {"run": "agent", "seq": 1})
    assert err and "budget" in content[0]["text"]
    content, err = t.call("get_screenshot", {"run": "agent", "seq": 9999})
    assert err and "no such screenshot" in content[0]["text"]
    content, err = t.call("rm_rf", {})
    assert err and "unknown tool" in content[0]["text"]
    content, err = RunTools(RunDir(AGENT), None).call("get_payloads", {"run": "reference"})
    assert err and "no reference run was given" in content[0]["text"]
