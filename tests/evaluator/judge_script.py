"""A scripted judge model for the LLM-judge tests: it reads the runs through the judge's tools and decides from
what it received (payload values, line numbers), like a real model would; variants misbehave on purpose."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.evaluator.anthropic_server import reply, result_text, tool_results, tool_use

PAYLOAD_LINE = re.compile(r"^line (\d+): .*? body=(\{.*\})$", re.M)


def step(body: dict[str, Any]) -> int:
    """How many assistant turns the conversation already has (stable across HTTP retries)."""
    return sum(1 for m in body["messages"] if m["role"] == "assistant")


def _results_so_far(body: dict[str, Any]) -> list[tuple[str, str]]:
    """(tool name, result text) of every tool call so far, from the whole conversation."""
    names: dict[str, str] = {}
    out = []
    for m in body["messages"]:
        if not isinstance(m["content"], list):
            continue
        for b in m["content"]:
            if b.get("type") == "tool_use":
                names[b["id"]] = b["name"]
            elif b.get("type") == "tool_result":
                out.append((names.get(b["tool_use_id"], "?"), result_text(b)))
    return out


def explore(body: dict[str, Any]) -> dict[str, Any] | None:
    """Turns 1-2: read payloads and actions, then a screenshot, HTTP and the agent's messages."""
    s = step(body)
    if s == 0:
        return reply({"type": "text", "text": "Reading the payloads."},
                     tool_use("get_payloads", {"run": "agent"}), tool_use("get_payloads", {"run": "reference"}),
                     tool_use("list_actions", {"run": "agent", "start_seq": 1, "end_seq": 40}))
    if s == 1:
        return reply(tool_use("get_screenshot", {"run": "agent", "seq": 1}),
                     tool_use("search_http", {"run": "agent", "query": "/api/", "method": "POST"}),
                     tool_use("get_agent_messages", {"run": "agent"}))
    return None


KEYWORDS = (("date", "date"), ("departure", "origin"), ("class", "cabin"), ("arrival", "destination"))


def verify_items(body: dict[str, Any]) -> list[str]:
    """The `verify` conditions listed in the judge's first message."""
    first = body["messages"][0]["content"]
    block = first.split("Conditions to verify:\n", 1)[-1].split("\n\n", 1)[0]
    return [line[2:] for line in block.splitlines() if line.startswith("- ")]


def decide(body: dict[str, Any]) -> dict[str, Any]:
    """The verdict from the payloads the tools returned: field by field, citing the lines they came from."""
    payloads = {}
    for name, text in _results_so_far(body):
        if name == "get_payloads":
            run = "reference" if 'run="reference"' in text else "agent"
            m = PAYLOAD_LINE.search(text)
            if m:
                payloads[run] = (int(m.group(1)), json.loads(m.group(2)))
    if "agent" not in payloads:
        return {"verdict": "FAIL", "justification": "No payload was caught.", "divergence": None,
                "conditions": [{"condition": item, "met": False, "evidence": [{"run": "agent", "file": "manifest.json"}]}
                               for item in ["terminal request sent", *verify_items(body)]]}
    aline, agent = payloads["agent"]
    rline, ref = payloads.get("reference", (None, {}))
    conds = []
    for item in verify_items(body):
        key = next((k for word, k in KEYWORDS if word in item.lower()), None)
        ev = [{"run": "agent", "file": "interceptions.jsonl", "line": aline, "field": key or "body"}]
        if rline:
            ev.append({"run": "reference", "file": "interceptions.jsonl", "line": rline, "field": key or "body"})
        met = key is None or str(agent.get(key)).strip().lower() == str(ref.get(key, agent.get(key))).strip().lower()
        conds.append({"condition": item, "met": met, "evidence": ev})
    ok = all(c["met"] for c in conds)
    bad = [c["condition"] for c in conds if not c["met"]]
    return {"verdict": "PASS" if ok else "FAIL", "conditions": conds,
            "justification": "All payload fields match the reference." if ok else f"Not met: {', '.join(bad)}.",
            "divergence": None if ok else {"step": None, "agent": json.dumps({k: agent.get(k) for k in ("date",)}),
                                           "reference": json.dumps({k: ref.get(k) for k in ("date",)})}}


def good_judge(body: dict[str, Any], srv: Any) -> dict[str, Any]:
    """Explores, then submits; obeys a forced tool_choice like the real API does."""
    if body.get("tool_choice", {}).get("type") == "tool":
        return reply(tool_use(body["tool_choice"]["name"], decide(body)))
    return explore(body) or reply(tool_use("submit_verdict", decide(body)))


def sloppy_judge(body: dict[str, Any], srv: Any) -> dict[str, Any]:
    """Explores, then: text only (no tool), a malformed verdict, a verdict citing line 999, then a good one."""
    first = explore(body)
    if first:
        return first
    attempt = step(body) - 2
    if attempt == 0:
        return reply({"type": "text", "text": "The agent did well. PASS."})
    if attempt == 1:
        return reply(tool_use("submit_verdict", {"verdict": "MAYBE", "conditions": "all good"}))
    if attempt == 2:
        bad = decide(body)
        bad["conditions"][0]["evidence"] = [{"run": "agent", "file": "actions.jsonl", "line": 999}]
        return reply(tool_use("submit_verdict", bad))
    return reply(tool_use("submit_verdict", decide(body)))


def hopeless_judge(body: dict[str, Any], srv: Any) -> dict[str, Any]:
    return reply(tool_use("submit_verdict", {"verdict": "PASS", "justification": "", "conditions": []}))


def flaky(statuses: list[int], inner=good_judge):
    """Answers the given HTTP statuses first (one per request), then behaves like `inner`."""
    def script(body: dict[str, Any], srv: Any) -> dict[str, Any]:
        n = srv.state.setdefault("flaky", 0)
        srv.state["flaky"] = n + 1
        if n < len(statuses):
            return {"status": statuses[n]}
        return inner(body, srv)
    return script


def all_results(srv: Any) -> list[dict[str, Any]]:
    """Every tool_result block the server received (last message of each request)."""
    return [b for r in srv.requests for b in tool_results(r["body"])]
