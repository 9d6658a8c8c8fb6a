"""The baseline agents in a real run: `random` acts (seeded) on visible elements and its actions are recorded;
`null` does nothing and ends on its own small budget."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.bench.helpers import DEMO, REPO


def _run(tmp_path: Path, agent: str, env: dict[str, str]) -> Path:
    proc = subprocess.run([sys.executable, "-m", "clawrec.cli", "run", str(DEMO / "social-status-update.yaml"),
                           "--agent", agent, "--headless", "--no-video", "--serve-sites", "--no-judge",
                           "--runs-dir", str(tmp_path / agent)], capture_output=True, text=True, cwd=REPO,
                          timeout=240, env={**os.environ, **env})
    assert proc.returncode == 0, proc.stderr[-2000:]
    return Path(proc.stdout.strip().splitlines()[-1])


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_random_agent_acts_seeded_and_null_idles(tmp_path):
    run = _run(tmp_path, "random", {"CLAWREC_RANDOM_SEED": "7", "CLAWREC_RANDOM_STEPS": "6"})
    m = json.loads((run / "manifest.json").read_text())
    assert m["agent"] == "random" and m["agent_result"]["steps"] == 6
    log = _jsonl(run / "agent.jsonl")
    assert "seed '7'" in log[0]["content"]
    calls = [r for r in log if r["role"] == "tool_call"]
    results = [r for r in log if r["role"] == "tool_result" and not r.get("is_error")]
    assert calls and results, log
    recorded = [a for a in _jsonl(run / "actions.jsonl") if a["type"] in ("click", "input", "change")]
    assert recorded, "the random agent's actions reached the page"

    run = _run(tmp_path, "null", {"CLAWREC_NULL_IDLE_S": "0.5"})
    m = json.loads((run / "manifest.json").read_text())
    assert m["status"] == "ok" and m["agent_result"]["steps"] == 0 and "null agent did nothing" in m["stop_reason"]
    assert not [a for a in _jsonl(run / "actions.jsonl") if a["type"] in ("click", "input")]
