"""`browser-use`: the browser-use agent (PyPI, in its own venv under .tools/) attached to our instrumented Chromium.

Why a program in another venv: browser-use pins exact versions of the anthropic/openai SDKs (clawrec/agents/
browser_use_runner.py runs there). It attaches with its CDP-URL browser session and never closes our browser; its
telemetry, cloud sync, update checks and cloud hints are off and its config/cache dirs are the run's private temp
directory (clawrec/agents/program.py). `--model anthropic/ID` or `openai/ID` with the key and base-URL variables the
other agents honor. Its steps (thoughts, actions, results) become agent.jsonl as they happen; its token usage goes to
the manifest.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from clawrec.agents.base import AgentContext, AgentResult, AgentSetupError
from clawrec.agents.browser_use_runner import STEP_LIMIT
from clawrec.agents.claude import first_message
from clawrec.agents.model_api import ModelFailures, failure_limit
from clawrec.agents.openclaw import mask, secret_values
from clawrec.agents.openclaw_config import ROOT, resolve_provider
from clawrec.agents.program import (JsonlTail, Outcome, log_at, private_dir, redactor_of, remove_soon,
                                    run_program, tail_line)
from clawrec.agents.usage import priced

DEFAULT_DIR = ROOT / ".tools" / "browser-use"
RUNNER = Path(__file__).resolve().with_name("browser_use_runner.py")
INSTALL_HINT = "browser-use is not installed; run: make agents"
QUIET_ENV = {"ANONYMIZED_TELEMETRY": "false", "BROWSER_USE_CLOUD_SYNC": "false", "BROWSER_USE_VERSION_CHECK": "false",
             "BROWSER_USE_CLOUD_HINTS": "false", "BROWSER_USE_LOGGING_LEVEL": "info",
             "PYTHONUNBUFFERED": "1", "NO_COLOR": "1"}


def find_python(install_dir: str | None = None) -> Path:
    base = Path(install_dir or os.environ.get("CLAWREC_BROWSER_USE_DIR") or DEFAULT_DIR)
    python = base / "bin" / "python"
    if not os.access(python, os.X_OK) or not (base / ".version").is_file():
        raise AgentSetupError(INSTALL_HINT)
    return python


def usage_record(model: str, usage: dict[str, Any]) -> dict[str, Any]:
    """browser-use's UsageSummary → the manifest's usage record (prompt tokens include the cached ones)."""
    cached = int(usage.get("total_prompt_cached_tokens") or 0)
    return priced(model, max(0, int(usage.get("total_prompt_tokens") or 0) - cached),
                  int(usage.get("total_completion_tokens") or 0), int(usage.get("entry_count") or 0), cached,
                  int(usage.get("total_prompt_cache_creation_tokens") or 0))


class BrowserUseAgent:
    name = "browser-use"

    def check(self, ctx: AgentContext) -> None:
        find_python(ctx.options.get("browser_use_dir"))
        resolve_provider(ctx.model, agent="browser-use")

    async def run(self, ctx: AgentContext) -> AgentResult:
        python = find_python(ctx.options.get("browser_use_dir"))
        provider = resolve_provider(ctx.model, agent="browser-use")
        model = f"{provider.name}/{provider.model_id}"
        secrets = secret_values(ctx.task.user)
        redactor = redactor_of(ctx, secrets)
        private = private_dir(ctx, "browser-use")
        limits = ctx.task.limits or {}
        max_steps = int(limits.get("steps") or 100)
        cfg = {"task": first_message(ctx), "cdp_url": ctx.cdp_url, "provider": provider.name,
               "model": provider.model_id, "base_url": provider.base_url, "key_var": provider.key_var,
               "max_steps": max_steps, "files": list(ctx.task.files), "events": str(private / "events.jsonl"),
               "workdir": str(private / "work")}
        (private / "config.json").write_text(json.dumps(cfg), encoding="utf-8")
        env = {**os.environ, **QUIET_ENV, "HOME": str(private), "XDG_CONFIG_HOME": str(private / "config"),
               "XDG_CACHE_HOME": str(private / "cache"), "BROWSER_USE_CONFIG_DIR": str(private / "config")}
        ctx.log("system", f"browser-use agent, model {model}", tool="browser-use", base_url=provider.base_url,
                private_dir=str(private))
        tail = JsonlTail(private / "events.jsonl")
        state: dict[str, Any] = {"calls": 0, "usage": None, "final": None, "error": None}
        failures = ModelFailures(ctx.log, failure_limit(ctx.options))

        def drain() -> int:
            calls = 0
            for ev in tail.new():
                role, content = ev.pop("role", "system"), ev.pop("content", "")
                epoch = ev.pop("epoch", None)
                if role == "model_response":  # one per HTTP response of the model API, retries included
                    if int(ev.get("model_status") or 0) >= 400:
                        failures.failure(int(ev["model_status"]), str(content))
                    else:
                        failures.answer()
                    continue
                if role == "usage":
                    state["usage"] = content
                    continue
                if role == "user" and isinstance(content, str):
                    continue  # the task as we wrote it: logged below, once
                calls += role == "tool_call"
                if ev.get("final"):
                    state["final"] = content
                if role == "system" and ev.get("error"):
                    state["error"] = content
                log_at(ctx, epoch, role, mask(content, secrets), **mask(ev, secrets))
            state["calls"] += calls
            return calls

        ctx.log("user", mask(cfg["task"], secrets))
        try:
            outcome = await run_program(ctx, [str(python), "-I", "-u", str(RUNNER), str(private / "config.json")], env,
                                        private, Path(ctx.run_dir) / "browser-use", redactor, drain, max_steps,
                                        "browser-use",
                                        give_up=lambda: "model API failing" if failures.exhausted else "")
        except asyncio.CancelledError:  # the run stopped it (terminal caught + grace): its steps and usage still count
            outcome = Outcome(None, "stopped by the run", 0.0)
        finally:
            await remove_soon(private)
        usage = failures.usage(usage_record(model, state["usage"]) if state["usage"] else priced(model, 0, 0, 0))
        steps = state["calls"]
        if failures.exhausted or (failures.failed and not failures.answers and not outcome.stopped):
            return AgentResult("error", f"browser-use failed: {failures.reason()}", steps, usage)
        if outcome.stopped:
            return AgentResult("ok", f"browser-use {outcome.stopped}", steps, usage)
        if outcome.code == 0:
            return AgentResult("ok", str(state["final"] or "browser-use finished")[:500], steps, usage)
        if outcome.code == STEP_LIMIT:
            return AgentResult("ok", f"browser-use went past the step limit ({max_steps} steps allowed)",
                               max(steps, max_steps), usage)
        reason = state["error"] or tail_line(Path(ctx.run_dir) / "browser-use" / "stderr.log")
        code = f"exit {outcome.code}" if (outcome.code or 0) >= 0 else f"killed by signal {-(outcome.code or 0)}"
        return AgentResult("error", f"browser-use failed ({code})" + (f": {reason}" if reason else ""), steps, usage)
