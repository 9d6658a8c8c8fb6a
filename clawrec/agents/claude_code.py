"""`claude-code`: Claude Code (`claude -p`, stream-json) with Playwright MCP as its only tool (see mcp_cli.py).

`--bare` (no hooks, plugins, CLAUDE.md discovery, keychain; the key is strictly ANTHROPIC_API_KEY), `--tools ""` (no
built-in tool: no shell, no file edits), `--strict-mcp-config` + `--allowedTools mcp__playwright` (the one server and
all its tools, nothing else asks for permission), `--max-turns` from the task's step limit. ANTHROPIC_BASE_URL is
honored by the CLI itself; its auto-updater, telemetry and error reporting are off.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from clawrec.agents.base import AgentContext
from clawrec.agents.mcp_cli import Events, McpCliAgent, text_of
from clawrec.agents.model_api import status_in
from clawrec.agents.openclaw_config import Provider
from clawrec.agents.usage import priced

QUIET = {"DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1",
         "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_BUG_COMMAND": "1",
         "CLAUDE_CODE_DISABLE_TERMINAL_TITLE": "1", "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY": "1"}


class ClaudeCodeAgent(McpCliAgent):
    name, provider, binary, config_var = "claude-code", "anthropic", "claude", "CLAUDE_CONFIG_DIR"

    def cli_args(self, provider: Provider, config: Path, mcp: list[str], max_steps: int) -> list[str]:
        servers = config / "mcp.json"
        servers.write_text(json.dumps({"mcpServers": {"playwright": {"type": "stdio", "command": mcp[0],
                                                                    "args": mcp[1:]}}}))
        return ["-p", "--output-format", "stream-json", "--verbose", "--bare", "--model", provider.model_id,
                "--mcp-config", str(servers), "--strict-mcp-config", "--tools", "", "--allowedTools",
                "mcp__playwright", "--max-turns", str(max_steps + 1)]

    def cli_env(self, provider: Provider) -> dict[str, str]:
        return {**QUIET, "ANTHROPIC_BASE_URL": provider.base_url}

    def on_event(self, ctx: AgentContext, ev: dict[str, Any], events: Events, log: Any) -> None:
        kind = ev.get("type")
        message = ev.get("message") or {}
        if kind == "assistant":
            events.failures.answer()
            if message.get("id") and isinstance(message.get("usage"), dict):  # per reply (one event per block)
                events.usage.setdefault("messages", {})[message["id"]] = message["usage"]
            for block in message.get("content") or []:
                if block.get("type") == "text" and block.get("text"):
                    log("assistant", block["text"])
                elif block.get("type") == "tool_use":
                    events.calls += 1
                    log("tool_call", block.get("input") or {}, tool=block.get("name"), id=block.get("id"))
        elif kind == "user":
            for block in message.get("content") or []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    log("tool_result", text_of(block.get("content")), tool_use_id=block.get("tool_use_id"),
                        id=block.get("tool_use_id"), is_error=bool(block.get("is_error")))
        elif kind == "result":
            events.usage["result"] = {**(ev.get("usage") or {}), "cost_usd": ev.get("total_cost_usd")}
            events.final = ev.get("result")
            if ev.get("is_error") or ev.get("subtype") not in (None, "success"):
                events.error = str(ev.get("result") or ev.get("subtype") or "error")[:500]
                status = status_in(events.error)
                if status is not None:  # its last request failed too: the one it stopped retrying on
                    events.failures.failure(status, events.error)
        elif kind == "system" and ev.get("subtype") == "api_retry":  # a failed request it will retry
            events.failures.failure(ev.get("error_status"), str(ev.get("error") or ""), attempt=ev.get("attempt"),
                                    max_retries=ev.get("max_retries"))
        elif kind == "system" and ev.get("subtype") == "init":
            log("system", "claude-code session", tools=ev.get("tools"), mcp_servers=ev.get("mcp_servers"),
                model=ev.get("model"), version=ev.get("claude_code_version"))

    def usage_record(self, model: str, events: Events) -> dict[str, Any]:
        """Summed over the model's replies as they streamed (a run stopped at the catch has no `result` event)."""
        replies = list((events.usage.get("messages") or {}).values())

        def total(key: str) -> int:
            return sum(int(u.get(key) or 0) for u in replies)

        rec = priced(model, total("input_tokens"), total("output_tokens"), len(replies),
                     total("cache_read_input_tokens"), total("cache_creation_input_tokens"))
        return {**rec, "cli_cost_usd": (events.usage.get("result") or {}).get("cost_usd")}
