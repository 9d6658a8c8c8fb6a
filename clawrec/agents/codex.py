"""`codex`: OpenAI's Codex CLI (`codex exec --json`) with Playwright MCP as its browser (see mcp_cli.py).

A provider of our own (`model_providers.clawrec`: OPENAI_BASE_URL, the key from OPENAI_API_KEY, the Responses wire
API) so that the base URL variable the other agents honor points Codex too; CODEX_HOME in the private directory
(its session file is read for the token counts, then removed with the rest), no shell or file tools (and a read-only
sandbox), web search, plugins and updates off, MCP tools approved (`default_tools_approval_mode`: `codex exec` cannot
ask). Its JSONL events become agent.jsonl.
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


# Features that reach beyond the run (plugin and app sync from GitHub/ChatGPT, updates, image generation, its own
# browser and computer use, sub-agents) and its shell and file tools: off, so that Codex talks only to the model
# endpoint and acts only through Playwright MCP.
OFF = ("plugins", "remote_plugin", "plugin_sharing", "apps", "in_app_updates", "image_generation", "browser_use",
       "browser_use_external", "browser_use_full_cdp_access", "in_app_browser", "computer_use", "multi_agent",
       "goals", "skill_mcp_dependency_install", "skill_search", "tool_search_always_defer_mcp_tools", "tool_suggest",
       "shell_tool", "unified_exec", "shell_snapshot", "view_image")


# How Codex words an HTTP 500 from the model endpoint (its InternalServerError; other statuses it names:
# "unexpected status 503 Service Unavailable: …").
HTTP_500_WORDS = "experiencing high demand"


def toml(value: Any) -> str:
    """A TOML inline value (JSON strings, arrays and tables are TOML's inline forms for these plain values)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {toml(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(toml(v) for v in value) + "]"
    return json.dumps(value)


class CodexAgent(McpCliAgent):
    name, provider, binary, config_var = "codex", "openai", "codex", "CODEX_HOME"

    def cli_args(self, provider: Provider, config: Path, mcp: list[str], max_steps: int) -> list[str]:
        settings = {
            "model_provider": "clawrec",
            "model_providers.clawrec": {"name": "clawrec", "base_url": provider.base_url, "env_key": provider.key_var,
                                        "wire_api": "responses"},
            # required: the first turn waits for the server (else its tools miss the first requests, and Codex sends
            # them as a Responses `namespace` tool only once it is up)
            "mcp_servers.playwright": {"command": mcp[0], "args": mcp[1:], "startup_timeout_sec": 60, "required": True,
                                       "default_tools_approval_mode": "approve",
                                       "tool_timeout_sec": 120},
            "web_search": "disabled", "check_for_update_on_startup": False, "analytics.enabled": False,
            "approval_policy": "never",
        }
        argv = ["exec", "--json", "--trust", "--skip-git-repo-check", "--sandbox", "read-only", "--color", "never",
                "-C", str(config.parent / "work"), "-m", provider.model_id]
        for key, value in settings.items():
            argv += ["-c", f"{key}={toml(value)}"]
        for feature in OFF:
            argv += ["--disable", feature]
        return argv + ["-"]

    def cli_env(self, provider: Provider) -> dict[str, str]:
        return {"RUST_LOG": "warn"}

    def on_event(self, ctx: AgentContext, ev: dict[str, Any], events: Events, log: Any) -> None:
        kind = ev.get("type", "")
        item = ev.get("item") or {}
        itype = item.get("type")
        if kind == "item.started" and itype == "mcp_tool_call":
            events.calls += 1
            log("tool_call", item.get("arguments") or {}, tool=f"{item.get('server')}.{item.get('tool')}",
                id=item.get("id"))
        elif kind == "item.completed":
            if itype == "mcp_tool_call":
                result = item.get("result") or {}
                error = item.get("error")
                log("tool_result", text_of((result or {}).get("content")) or (error or {}).get("message", ""),
                    tool=f"{item.get('server')}.{item.get('tool')}", id=item.get("id"),
                    is_error=bool(error) or item.get("status") == "failed")
            elif itype == "agent_message":
                events.failures.answer()
                events.final = item.get("text")
                log("assistant", item.get("text") or "")
            elif itype == "reasoning":
                log("assistant", item.get("text") or "", reasoning=True)
            elif itype == "command_execution":
                events.calls += 1
                log("tool_call", {"command": item.get("command")}, tool="shell", id=item.get("id"),
                    output=item.get("aggregated_output"), exit_code=item.get("exit_code"))
            elif itype == "error":
                log("system", item.get("message") or "", error=True)
        elif kind == "turn.completed":
            events.failures.answer()
            usage = events.usage
            for key, value in (ev.get("usage") or {}).items():
                usage[key] = usage.get(key, 0) + int(value or 0)
            usage["turns"] = usage.get("turns", 0) + 1
        elif kind == "turn.failed":
            events.error = str((ev.get("error") or {}).get("message") or kind)[:500]
            log("system", events.error, error=True)
        elif kind == "error":  # a failed model request: a retry notice ("Reconnecting... 2/5 (…)"), or the last one
            message = str(ev.get("message") or "")  # (a lost turn is `turn.failed` after it)
            status = status_in(message) or (500 if HTTP_500_WORDS in message else None)
            events.failures.failure(status, message)

    def read_private(self, private: Path, events: Events) -> None:
        """Usage from its session file's token counts (one per model response): `turn.completed` is the only usage
        in the event stream, and a run stopped at the catch never sees it."""
        counts = []
        for path in sorted((private / "config" / "sessions").glob("**/rollout-*.jsonl")):
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                if '"token_count"' not in line:
                    continue
                try:
                    info = (json.loads(line).get("payload") or {}).get("info") or {}
                except ValueError:
                    continue
                if info.get("total_token_usage"):
                    counts.append(info["total_token_usage"])
        if counts:
            events.usage = {**counts[-1], "turns": len(counts)}

    def usage_record(self, model: str, events: Events) -> dict[str, Any]:
        u = events.usage
        cached = int(u.get("cached_input_tokens") or 0)
        return priced(model, max(0, int(u.get("input_tokens") or 0) - cached), int(u.get("output_tokens") or 0),
                      int(u.get("turns") or 0), cached)
