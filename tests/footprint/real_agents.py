"""Real agents on the detector page, for tests/footprint/measure_agents.py: `clawrec run --agent NAME` against the
scripted model server (tests/support), whose script makes the agent open the detector page again with `&agent=1`
through its own tools (OpenClaw's browser tool, Playwright MCP, browser-use's `navigate`, the claude agent's
`navigate`, computer use's address bar by xdotool) and wait until the page has reported, then answer "Done."
Why a script: the adapter's own connection and its own navigation are what is measured, with no model on this machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

from tests.footprint.server import Reports
from tests.footprint.test_footprint import SPEC
from tests.pipeline.claude_plans import for_claude
from tests.support.mcp_plans import for_mcp
from tests.support.model_script import History, Script, ToolCall, Turn, browser
from tests.support.model_server import ModelServer

REPO = Path(__file__).resolve().parents[2]
PROVIDER = {"codex": "openai"}  # the others are scripted over Anthropic Messages
HEADED = {"computer-use"}  # needs the run's X display


def _seen(reports: Reports, wheres: set[str]) -> bool:
    with reports.lock:
        return wheres <= {r.get("where") for r in reports.items}


def browser_tool(url: str, reports: Reports, wheres: set[str]) -> Script:
    """OpenClaw's `browser` tool: navigate, then wait until the reports are in."""
    def script(request: dict[str, Any], h: History) -> Turn:
        calls = [c for m in h.messages if m.role == "assistant" for c in m.tool_calls]
        if not any(c.arguments.get("action") == "navigate" for c in calls):
            return browser(action="navigate", url=url)
        if _seen(reports, wheres) or len(calls) > 240:
            return Turn(text="Done.")
        return browser(action="act", kind="wait", timeMs=500)
    return script


def browser_use(url: str, reports: Reports, wheres: set[str]) -> Script:
    state = {"sent": False, "turns": 0}

    def script(request: dict[str, Any], h: History) -> Turn:
        state["turns"] += 1
        if not state["sent"]:
            state["sent"] = True
            acts: list[dict[str, Any]] = [{"navigate": {"url": url, "new_tab": False}}]
        elif _seen(reports, wheres) or state["turns"] > 120:
            acts = [{"done": {"text": "Done.", "success": True}}]
        else:
            acts = [{"wait": {"seconds": 1}}]
        out = {"thinking": "open the page", "evaluation_previous_goal": "Success", "memory": "", "next_goal": "page",
               "action": acts}
        return Turn(tool_calls=[ToolCall("AgentOutput", out)]) if h.api == "anthropic" else Turn(text=json.dumps(out))
    return script


def computer(url: str, reports: Reports, wheres: set[str]) -> Script:
    """The address bar by keyboard: what a person (or a model looking at the screen) would do."""
    memo: dict[int, Turn] = {}

    def script(request: dict[str, Any], h: History) -> Turn:
        if h.step in memo:
            return memo[h.step]
        if h.step == 0:
            turn = Turn(tool_calls=[ToolCall("computer", {"action": "screenshot"})])
        elif h.step == 1:
            turn = Turn(tool_calls=[ToolCall("computer", a) for a in (
                {"action": "key", "text": "ctrl+l"}, {"action": "type", "text": url},
                {"action": "key", "text": "Return"})])
        elif _seen(reports, wheres) or h.step > 240:
            turn = Turn(text="Done.")
        else:
            turn = Turn(tool_calls=[ToolCall("computer", {"action": "wait", "duration": 0.5})])
        memo[h.step] = turn
        return turn
    return script


SCRIPTS: dict[str, Callable[[str, Reports, set[str]], Script]] = {
    "openclaw": browser_tool, "claude-code": lambda *a: for_mcp(browser_tool(*a)),
    "codex": lambda *a: for_mcp(browser_tool(*a)), "claude": lambda *a: for_claude(browser_tool(*a)),
    "browser-use": browser_use, "computer-use": computer}


def run_agent(agent: str, port: str, reports: Reports, tmp: Path, wheres: set[str],
              headless: bool | None = None) -> tuple[dict[str, Any], str]:
    """The reports of `wheres` after `agent` opened the page again; and the run's status line. `headless` None: the
    agent's usual mode (computer-use needs the run's X display)."""
    base, other = f"http://127.0.0.1:{port}", f"http://localhost:{port}"
    spec = tmp / "footprint.yaml"
    spec.write_text(SPEC.format(base=base, other=other, port=port).replace("time_s: 120", "time_s: 300"))
    url = f"{base}/detect.html?frame={other}&agent=1"
    provider = PROVIDER.get(agent, "anthropic")
    with ModelServer(SCRIPTS[agent](url, reports, wheres)) as model:
        env = {**os.environ, "ANTHROPIC_API_KEY": "sk-measure", "ANTHROPIC_BASE_URL": model.base_url,
               "OPENAI_API_KEY": "sk-measure", "OPENAI_BASE_URL": model.openai_base_url}
        argv = [sys.executable, "-m", "clawrec.cli", "run", str(spec), "--agent", agent, "--model",
                f"{provider}/scripted", "--no-judge", "--run-dir", str(tmp / "run"), "--no-video"]
        argv += [] if (agent in HEADED if headless is None else not headless) else ["--headless"]
        proc = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, env=env, timeout=600)
        errors = model.script_errors
    manifest = tmp / "run" / "manifest.json"
    status = json.loads(manifest.read_text()).get("status") if manifest.exists() else None
    got = {r.get("where"): r for r in reports.items}
    if not wheres <= set(got):
        raise AssertionError(f"{agent}: reports missing {sorted(wheres - set(got))} (exit {proc.returncode}, "
                             f"status {status}, script errors {errors[:2]}): {proc.stderr[-1500:]}")
    return got, f"exit {proc.returncode}, status {status}"
