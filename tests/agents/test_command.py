"""The `command` agent: a real program (a Playwright script) drives our Chromium through CLAWREC_* variables."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

import pytest

from clawrec.agents.base import AgentContext, AgentSetupError, TaskInfo
from clawrec.agents.command import STDERR_LOG, STDOUT_LOG, CommandAgent
from tests.pipeline.tinysite import TinySite

SCRIPT = Path(__file__).resolve().parents[1] / "pipeline" / "agent_scripts" / "signup_agent.py"
USER = {"first_name": "Alex", "last_name": "Doe", "email": "alex@example.com"}


def make_ctx(tmp_path: Path, cdp_url: str, url: str, **options) -> tuple[AgentContext, list]:
    messages: list = []
    task = TaskInfo(id="tiny-signup", instruction="Sign me up for the Pro plan.", start_url=url, user=USER,
                    files=[], limits={"time_s": 60, "steps": 20})
    ctx = AgentContext(cdp_url=cdp_url, task=task, run_dir=tmp_path,
                       log=lambda role, content, **f: messages.append((role, content, f)), options=options)
    return ctx, messages


def test_playwright_script_completes_the_task(browser, tmp_path):
    with TinySite() as site:
        ctx, messages = make_ctx(tmp_path, browser.http_url, site.url,
                                 agent_cmd=f"{sys.executable} {SCRIPT}")
        result = asyncio.run(CommandAgent().run(ctx))
        assert result.status == "ok", (result, (tmp_path / STDERR_LOG).read_text())
        posts = site.posts("/api/signup")
    assert len(posts) == 1
    assert json.loads(posts[0]["body"]) == {"name": "Alex Doe", "email": "alex@example.com", "plan": "pro"}
    assert "status done 200" in (tmp_path / STDOUT_LOG).read_text()
    task = json.loads((tmp_path / "task.json").read_text())
    assert task["instruction"] == "Sign me up for the Pro plan." and task["user"] == USER
    external = [json.loads(line) for line in (tmp_path / "agent.external.jsonl").read_text().splitlines()]
    assert [m["role"] for m in external] == ["user", "tool_call", "tool_result"]


def test_failing_program_is_an_agent_error_with_its_last_stderr_line(tmp_path):
    ctx, _ = make_ctx(tmp_path, "http://127.0.0.1:9", "http://127.0.0.1:9/",
                      agent_cmd=f"{sys.executable} -c \"import sys; sys.exit('boom: no browser')\"")
    result = asyncio.run(CommandAgent().run(ctx))
    assert result.status == "error"
    assert "exited 1" in result.message and "boom: no browser" in result.message


def test_missing_agent_cmd_is_a_setup_error(tmp_path):
    ctx, _ = make_ctx(tmp_path, "http://127.0.0.1:9", "http://127.0.0.1:9/")
    with pytest.raises(AgentSetupError, match="--agent-cmd"):
        CommandAgent().check(ctx)


def test_cancel_kills_the_whole_process_group(tmp_path):
    """Stopping the run kills the program and its children (a grandchild that ignores SIGTERM included)."""
    pidfile = tmp_path / "child.pid"
    cmd = f"sh -c 'trap \"\" TERM; echo $$ > {pidfile}; sleep 60' & wait"
    ctx, _ = make_ctx(tmp_path, "http://127.0.0.1:9", "http://127.0.0.1:9/", agent_cmd=cmd)

    async def go() -> float:
        task = asyncio.create_task(CommandAgent().run(ctx))
        deadline = time.monotonic() + 20
        while not (pidfile.exists() and pidfile.read_text().strip()):
            assert time.monotonic() < deadline, "the command never started"
            await asyncio.sleep(0.05)
        t0 = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return time.monotonic() - t0

    took = asyncio.run(go())
    pid = int(pidfile.read_text())
    assert took < 30  # the grace and one SIGKILL round, far below the grandchild's 60 s sleep (no timing race under load)
    assert not _alive(pid)


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for a reaper counts as dead)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return False
        if state in ("Z", "X"):
            return False
        time.sleep(0.05)
    return True


def test_stop_sends_sigterm_first_so_the_program_can_flush(tmp_path):
    """Cancelling (the run stops) SIGTERMs the program's group before killing it: a TERM trap gets to run."""
    ready = tmp_path / "ready"
    cmd = f"trap 'echo got TERM; exit 0' TERM; touch {ready}; while true; do sleep 0.05; done"
    ctx, _ = make_ctx(tmp_path, "http://127.0.0.1:9", "http://127.0.0.1:9/", agent_cmd=cmd)

    async def go() -> float:
        task = asyncio.create_task(CommandAgent().run(ctx))
        deadline = time.monotonic() + 20
        while not ready.exists():
            assert time.monotonic() < deadline, "the command never started"
            await asyncio.sleep(0.05)
        t0 = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return time.monotonic() - t0

    assert asyncio.run(go()) < 3
    assert "got TERM" in (tmp_path / STDOUT_LOG).read_text()
