"""The built-in agents do not undo what clawrec hides (issue 23, acceptance 1 and build 3): `claude` (its real
adapter, a scripted model making it open the detector page again with its own `navigate`), `random` (it clicks the
page's one link, "check again") and `replay` (`--from` the claude run: it replays that navigation) drive the run's
browser through their own CDP connection (patchright); the detector page, its cross-site iframe and both workers,
as reloaded by the agent, must read as in the bare browser: BotD "not a bot", webdriver false, no CDP serialization
leak, zero findings. Headed and headless."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.footprint.real_agents import run_agent
from tests.footprint.test_footprint import SPEC, WHERE, bare, display, findings, pages  # noqa: F401 (fixtures)

REPO = Path(__file__).resolve().parents[2]
AGENT_WHERE = {w + "@agent" for w in WHERE}


def _no_cdp_agent_run(agent: str, port: str, reports, tmp: Path, headless: bool, extra: list[str]) -> dict:
    """`clawrec run --agent random|replay` on the detector page; the reports of the agent's reload."""
    base, other = f"http://127.0.0.1:{port}", f"http://localhost:{port}"
    spec = tmp / "footprint.yaml"
    spec.write_text(SPEC.format(base=base, other=other, port=port))
    argv = [sys.executable, "-m", "clawrec.cli", "run", str(spec), "--agent", agent, "--no-judge", "--no-video",
            "--run-dir", str(tmp / f"run-{agent}"), *extra] + (["--headless"] if headless else [])
    env = {"CLAWREC_RANDOM_STEPS": "6", "CLAWREC_RANDOM_S": "30"}
    proc = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=300, env={**os.environ, **env})
    got = {r.get("where"): r for r in reports.items}
    assert AGENT_WHERE <= set(got), (f"{agent}: reports missing {sorted(AGENT_WHERE - set(got))} "
                                     f"(exit {proc.returncode}): {proc.stderr[-2000:]}")
    manifest = json.loads((tmp / f"run-{agent}" / "manifest.json").read_text())
    assert manifest["agent"] == agent and proc.returncode == 0, (manifest.get("agent"), proc.returncode)
    return got


@pytest.mark.parametrize("headless", [True, False], ids=["headless", "headed"])
def test_builtin_agents_add_nothing_a_page_can_detect(headless, pages, bare, tmp_path):
    port, reports = pages
    assert bare["page"]["botd"] == {"bot": False, "kind": None}, bare["page"]["botd"]
    results = {}
    reports.clear()
    got, how = run_agent("claude", port, reports, tmp_path, AGENT_WHERE, headless=headless)
    assert how.startswith("exit 0"), how
    results["claude"] = got
    reports.clear()
    results["replay"] = _no_cdp_agent_run("replay", port, reports, tmp_path, headless,
                                          ["--from", str(tmp_path / "run")])
    reports.clear()
    results["random"] = _no_cdp_agent_run("random", port, reports, tmp_path, headless, [])
    for agent, got in results.items():
        seen = {w: got[w + "@agent"] for w in WHERE}
        assert seen["page"]["webdriver"] is False, agent
        assert not any(seen[w]["leaks"]["prepare_stack_trace"] for w in WHERE), (agent, "CDP serialization leak")
        assert findings(bare, seen) == [], agent
