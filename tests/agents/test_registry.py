"""Agent lookup: built-ins, and third-party agents from a real installed distribution's entry points."""

from __future__ import annotations

import asyncio
import sys
import textwrap
from pathlib import Path

import pytest

from clawrec.agents import registry
from clawrec.agents.base import AgentContext, AgentSetupError, TaskInfo
from clawrec.agents.command import CommandAgent
from clawrec.agents.human import HumanAgent


def install_plugin(root: Path, ep_line: str, code: str, name: str = "tinyagent") -> None:
    """A real distribution on sys.path: a package plus a .dist-info with METADATA and entry_points.txt."""
    pkg = root / f"{name}_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(textwrap.dedent(code))
    info = root / f"{name}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[clawrec.agents]\n{ep_line}\n")


PLUGIN = """
from clawrec.agents.base import AgentResult

class TinyAgent:
    name = "tiny"
    async def run(self, ctx):
        ctx.log("assistant", "hello from a plug-in: " + ctx.task.instruction)
        return AgentResult(status="ok", message="tiny done", steps=1)
"""


def test_builtins_resolve():
    assert isinstance(registry.create_agent("command"), CommandAgent)
    assert isinstance(registry.create_agent("human"), HumanAgent)
    assert {"command", "claude", "replay", "openclaw", "human"} <= set(registry.available())


def test_unknown_agent_names_the_choices():
    with pytest.raises(registry.UnknownAgentError) as info:
        registry.create_agent("no-such-agent")
    msg = str(info.value)
    assert "unknown agent 'no-such-agent'" in msg and "command" in msg and "replay" in msg


def test_entry_point_agent_is_found_and_runs(tmp_path, monkeypatch):
    install_plugin(tmp_path, "tiny = tinyagent_pkg:TinyAgent", PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert registry.available()["tiny"] == "tinyagent_pkg:TinyAgent"
    agent = registry.create_agent("tiny")
    messages = []
    ctx = AgentContext(cdp_url="http://127.0.0.1:9", task=TaskInfo(id="t", instruction="wave", start_url="about:blank"),
                       run_dir=tmp_path, log=lambda role, content, **f: messages.append((role, content)))
    result = asyncio.run(agent.run(ctx))
    assert result.message == "tiny done"
    assert messages == [("assistant", "hello from a plug-in: wave")]
    sys.modules.pop("tinyagent_pkg", None)


def test_broken_entry_point_is_a_setup_error(tmp_path, monkeypatch):
    install_plugin(tmp_path, "broken = brokenagent_pkg:Missing", "X = 1\n", name="brokenagent")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(AgentSetupError, match="agent 'broken' .* failed to load: AttributeError"):
        registry.create_agent("broken")
    sys.modules.pop("brokenagent_pkg", None)


def test_entry_point_agent_runs_under_clawrec_run(tmp_path, monkeypatch, capsys):
    """`clawrec run --agent tiny` finds the plug-in through its entry point and records what it logs."""
    import json

    from tests.pipeline.helpers import manifest, run_cli
    from tests.pipeline.tinysite import TinySite, write_spec

    install_plugin(tmp_path, "tiny = tinyagent_pkg:TinyAgent", PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    with TinySite() as site:
        spec = write_spec(tmp_path, site)
        code, out, err = run_cli([str(spec), "--agent", "tiny", "--headless", "--runs-dir", str(tmp_path / "r")],
                                 capsys)
    sys.modules.pop("tinyagent_pkg", None)
    assert code == 0, err
    run_dir = Path(out[-1])
    m = manifest(run_dir)
    assert m["agent"] == "tiny" and m["status"] == "ok" and m["agent_result"]["message"] == "tiny done"
    logged = [json.loads(line) for line in (run_dir / "agent.jsonl").read_text().splitlines()]
    assert any(r["content"] == "hello from a plug-in: Sign me up for the Pro plan of the newsletter." for r in logged)


CRASHING = """
class CrashAgent:
    name = "crash"
    async def run(self, ctx):
        raise RuntimeError("adapter bug")
"""


def test_agent_that_raises_is_an_agent_error_not_a_clawrec_crash(tmp_path, monkeypatch, capsys):
    from tests.pipeline.helpers import manifest, run_cli
    from tests.pipeline.tinysite import TinySite, write_spec

    install_plugin(tmp_path, "crash = crashagent_pkg:CrashAgent", CRASHING, name="crashagent")
    monkeypatch.syspath_prepend(str(tmp_path))
    with TinySite() as site:
        spec = write_spec(tmp_path, site)
        code, out, err = run_cli([str(spec), "--agent", "crash", "--headless", "--runs-dir", str(tmp_path / "r")],
                                 capsys)
    sys.modules.pop("crashagent_pkg", None)
    assert code == 0, err
    run_dir = Path(out[-1])
    m = manifest(run_dir)
    assert m["status"] == "agent_error" and "RuntimeError: adapter bug" in m["stop_reason"]
    assert "raise RuntimeError" in (run_dir / "agent.error.log").read_text()
