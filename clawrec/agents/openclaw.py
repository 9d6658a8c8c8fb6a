"""`openclaw`: the real OpenClaw agent (npm, Node 24) attached to our instrumented Chromium.

Why a subprocess per run with its own state dir: `openclaw agent exec` is OpenClaw's headless one-turn entry point;
it owns its state dir exclusively, so two runs never share one. Why that state dir is NOT in the run directory: what
OpenClaw writes itself (its prompt, SQLite transcript and state, log) holds the task as it got it, secrets in clear.
So its config, state, workspace, home and prompt live in a private temp directory (mode 0700) outside the run
directory, which the fail-closed watchdog removes if clawrec is killed and run() removes when it ends. The run
directory gets, through the run's redaction policy (rundir/redact.py): its transcript turned into agent.jsonl while
it runs, its stdout/stderr as they stream (openclaw/stdout.json, openclaw/stderr.log), and at the end copies of its
log and config (openclaw/openclaw.log, openclaw/openclaw.json). Cancelling run() kills its whole process group.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import shutil
import uuid
from pathlib import Path
from typing import Any

from clawrec.agents.base import AgentContext, AgentResult
from clawrec.agents.openclaw_config import (Install, Provider, build_config, find_install, reserved_port_block,
                                            resolve_provider, write_config)
from clawrec.agents.openclaw_transcript import Record, TranscriptReader
from clawrec.agents.output import copy_redacted
from clawrec.agents.model_api import ModelFailures, failure_limit
from clawrec.agents.program import LineTail, log_at, private_dir, redactor_of, run_program
from clawrec.agents.usage import UsageTotals
from rundir.redact import Redactor

log = logging.getLogger("clawrec.openclaw")
DEFAULT_TIMEOUT_S = 1800
UPLOAD_ROOT = Path("/tmp/openclaw/uploads")  # OpenClaw's browser `upload` only reads files below this root
SECRET_KEY = re.compile(r"pass(word|code|phrase)?$|secret|token|cvc|cvv|pin$", re.I)
MASK = "••••••"
LOG = "openclaw.log"
MODEL_FETCH = re.compile(r"\[model-fetch\] response .*?\bstatus=(\d{3})(?!\d)")  # its stderr line per model response


def build_prompt(ctx: AgentContext, files: list[str]) -> str:
    """The one message OpenClaw gets: instruction, start URL, the user's info, and uploadable file paths."""
    task = ctx.task
    lines = [task.instruction.strip(), "", f"Start at: {task.start_url}",
             "A browser is already open for you: use the `browser` tool (navigate, snapshot, act, upload) on it."]
    if task.user:
        lines += ["", "Information about me that you may use:"]
        lines += [f"- {key}: {value}" for key, value in _flatten(task.user)]
    if files:
        lines += ["", "Files I provide (upload them with the browser tool, action `upload`, using these paths):"]
        lines += [f"- {path}" for path in files]
    lines += ["", "Do the whole task in the browser, then reply with one short sentence saying what you did."]
    return "\n".join(lines) + "\n"


def _flatten(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """Nested user info as dotted keys (address.city: Austin): one fact per line for the model."""
    if isinstance(value, dict):
        return [kv for k, v in value.items() for kv in _flatten(v, f"{prefix}{k}.")]
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        return [kv for i, v in enumerate(value) for kv in _flatten(v, f"{prefix}{i}.")]
    return [(prefix.rstrip("."), value)]


def secret_values(user: dict[str, Any]) -> list[tuple[str, str]]:
    """(key, value) of the user's passwords and card codes, masked in agent.jsonl (prompt and typed text)."""
    found = {(k, str(v)) for k, v in _flatten(user) if SECRET_KEY.search(k) and str(v)}
    return sorted(found, key=lambda kv: len(kv[1]), reverse=True)


def mask(value: Any, secrets: list[tuple[str, str]]) -> Any:
    """Secrets of 6+ characters are masked wherever they appear; shorter ones (a CVC) only as a whole value or on
    their prompt line, so that refs and prices that happen to contain the digits stay intact."""
    if not secrets:
        return value
    if isinstance(value, str):
        for key, secret in secrets:
            if value == secret:
                return MASK
            if len(secret) >= 6:
                value = value.replace(secret, MASK)
            else:
                value = value.replace(f"- {key}: {secret}\n", f"- {key}: {MASK}\n")
        return value
    if isinstance(value, dict):
        return {k: mask(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [mask(v, secrets) for v in value]
    return value


def stage_uploads(files: list[str], run_id: str) -> tuple[list[str], Path | None]:
    """Copy the task's files below OpenClaw's upload root (its upload action refuses other paths)."""
    if not files:
        return [], None
    folder = UPLOAD_ROOT / f"clawrec-{run_id}"
    try:
        for private in (UPLOAD_ROOT.parent, UPLOAD_ROOT):  # OpenClaw distrusts a temp root others may write to
            private.mkdir(mode=0o700, exist_ok=True)
        folder.mkdir(exist_ok=True)
        staged = []
        for i, src in enumerate(files):
            dest = folder / (Path(src).name if Path(src).name not in {Path(s).name for s in files[:i]}
                             else f"{i}-{Path(src).name}")
            shutil.copyfile(src, dest)
            staged.append(str(dest))
        return staged, folder
    except OSError:  # cannot stage: give the original paths and let OpenClaw say why it refuses them
        shutil.rmtree(folder, ignore_errors=True)
        return list(files), None


def keep_redacted(private: Path, base: Path, redactor: Redactor) -> None:
    """End of a run: OpenClaw's log and config into the run directory through the redaction policy (the transcript
    is already in agent.jsonl), then its private directory removed with everything in clear."""
    try:
        copy_redacted(private / LOG, base / LOG, redactor)
        copy_redacted(private / "state" / "openclaw.json", base / "openclaw.json", redactor)
    except OSError as exc:  # a full disk: the run's write guard reports it; the secrets still go
        log.warning("cannot keep OpenClaw's log and config: %s", exc)
    finally:
        shutil.rmtree(private, ignore_errors=True)


class OpenClawAgent:
    """Runs `openclaw agent exec` once against the run's browser and model provider."""

    name = "openclaw"

    def check(self, ctx: AgentContext) -> None:
        """Fail before the browser starts: not installed, bad --model, or no key → AgentSetupError (exit 2)."""
        find_install(ctx.options.get("openclaw_dir"))
        resolve_provider(ctx.model)

    async def run(self, ctx: AgentContext) -> AgentResult:
        install = find_install(ctx.options.get("openclaw_dir"))
        provider = resolve_provider(ctx.model)
        base = Path(ctx.run_dir) / "openclaw"
        base.mkdir(parents=True, exist_ok=True)
        private = private_dir(ctx, "openclaw")  # mode 0700, like the agent's task file
        secrets = secret_values(ctx.task.user)
        redactor = redactor_of(ctx, secrets)
        try:
            with reserved_port_block() as gateway_port:  # held until OpenClaw is gone
                return await self._run(ctx, install, provider, base, private, secrets, redactor, gateway_port)
        finally:
            await asyncio.shield(asyncio.to_thread(keep_redacted, private, base, redactor))

    async def _run(self, ctx: AgentContext, install: Install, provider: Provider, base: Path, private: Path,
                   secrets: list[tuple[str, str]], redactor: Redactor, gateway_port: int) -> AgentResult:
        state, workspace, home = private / "state", private / "workspace", private / "home"
        for folder in (state, workspace, home):
            folder.mkdir()
        config_path = write_config(state, build_config(provider=provider, cdp_url=ctx.cdp_url, workspace=workspace,
                                                       log_file=private / LOG, gateway_port=gateway_port))
        files, staged_dir = stage_uploads(list(ctx.task.files), uuid.uuid4().hex[:12])
        prompt_path = private / "prompt.txt"
        prompt_path.write_text(build_prompt(ctx, files), encoding="utf-8")
        limits = ctx.task.limits or {}
        timeout_s = int(ctx.options.get("openclaw_timeout_s") or limits.get("time_s") or DEFAULT_TIMEOUT_S)
        max_steps = int(limits.get("steps") or 0)
        argv = [str(install.node_bin / "node"), str(install.cli), "agent", "exec", "--config", str(config_path),
                "--state-dir", str(state), "--cwd", str(workspace), "--json", "--timeout", str(timeout_s),
                "--message-file", str(prompt_path)]
        env = {**os.environ, "PATH": f"{install.node_bin}{os.pathsep}{os.environ.get('PATH', '')}",
               "HOME": str(home), "OPENCLAW_STATE_DIR": str(state), "OPENCLAW_CONFIG_PATH": str(config_path),
               "NO_COLOR": "1", "FORCE_COLOR": "0"}
        ctx.log("system", f"openclaw {install.version} agent exec, model {provider.name}/{provider.model_id}",
                tool="openclaw", base_url=provider.base_url, api=provider.api, private_dir=str(private))
        reader = TranscriptReader(state)
        tool_calls = 0  # counted by drain, which run_program calls every POLL_S and once more at the end
        totals = UsageTotals(f"{provider.name}/{provider.model_id}")  # usage from the transcript, per model reply
        failures = ModelFailures(ctx.log, failure_limit(ctx.options))
        fetches = LineTail(base / "stderr.log")  # its model-fetch lines: every model response's status

        def drain() -> int:
            nonlocal tool_calls
            for line in fetches.lines():
                if (m := MODEL_FETCH.search(line.decode("utf-8", "replace"))) is not None:
                    if int(m.group(1)) < 400:
                        failures.answer()
                    else:
                        failures.failure(int(m.group(1)), m.group(0).removeprefix("[model-fetch] "))
            count = 0
            for rec in reader.new_records():
                self._emit(ctx, rec, secrets)
                count += rec.role == "tool_call"
                if isinstance(rec.fields.get("usage"), dict):
                    totals.add(rec.fields["usage"])
            tool_calls += count
            return count

        try:
            outcome = await run_program(ctx, argv, env, workspace, base, redactor, drain, max_steps, "OpenClaw",
                                        stdout_name="stdout.json",
                                        give_up=lambda: "model API failing" if failures.exhausted else "")
        finally:
            if staged_dir:
                shutil.rmtree(staged_dir, ignore_errors=True)
        result = self._result(outcome.code, base / "stdout.json", tool_calls, outcome.stopped, timeout_s)
        if totals.requests:
            result.usage = {**result.usage, **totals.record()}  # OpenClaw's own envelope counts kept beside
        result.usage = failures.usage(result.usage)
        if failures.exhausted or (failures.failed and not failures.answers and not outcome.stopped):
            result.status, result.message = "error", f"OpenClaw failed: {failures.reason()}"
        return result

    @staticmethod
    def _emit(ctx: AgentContext, rec: Record, secrets: list[tuple[str, str]]) -> None:
        """Log one record at the time OpenClaw stored it, on the run clock."""
        fields = mask(dict(rec.fields), secrets)
        log_at(ctx, fields.get("epoch"), rec.role, mask(rec.content, secrets), **fields)

    @staticmethod
    def _result(code: int | None, stdout_path: Path, steps: int, stopped: str, timeout_s: int) -> AgentResult:
        envelope: dict[str, Any] = {}
        try:
            text = stdout_path.read_text(encoding="utf-8", errors="replace").strip()
            envelope = json.loads(text[text.find("{"):]) if "{" in text else {}
        except (OSError, ValueError):
            envelope = {}
        usage = envelope.get("usage") or {}
        steps = int((envelope.get("toolSummary") or {}).get("calls") or steps)
        if stopped:
            return AgentResult(status="ok", message=f"OpenClaw {stopped}", steps=steps, usage=usage)
        if code == 0:
            return AgentResult(status="ok", message=str(envelope.get("final") or "")[:500], steps=steps, usage=usage)
        error = (envelope.get("error") or {}).get("message") or ""
        if code == 2:
            return AgentResult(status="error", message=f"OpenClaw timed out after {timeout_s}s (its --timeout)",
                               steps=steps, usage=usage)
        reason = f"exit {code}" if code is not None and code >= 0 else f"killed by signal {-(code or 0)}"
        return AgentResult(status="error", message=f"OpenClaw failed ({reason})" + (f": {error}" if error else ""),
                           steps=steps, usage=usage)
