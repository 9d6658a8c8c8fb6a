"""The baseline agents in a bench of their own (the way a spec's false positives are measured): `random` acts,
seeded, on visible elements and its actions are recorded; `null` does nothing and ends on its small budget."""

from __future__ import annotations

import json
from pathlib import Path

from tests.bench.helpers import DEMO, FAST, bench


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_null_and_random_baselines(tmp_path):
    out = tmp_path / "baselines"
    proc = bench(str(DEMO), "--ids", "social-status-update", "--agent", "random", "--agent", "null", "-j", "2",
                 "--out", str(out), *FAST,
                 env={"CLAWREC_RANDOM_SEED": "7", "CLAWREC_RANDOM_STEPS": "6", "CLAWREC_NULL_IDLE_S": "0.5"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    run = out / "runs" / "social-status-update" / "random" / "trial-1"
    m = json.loads((run / "manifest.json").read_text())
    assert m["agent"] == "random" and m["agent_result"]["steps"] == 6
    log = _jsonl(run / "agent.jsonl")
    assert "seed '7'" in log[0]["content"]
    assert [r for r in log if r["role"] == "tool_call"] and [r for r in log if r["role"] == "tool_result"], log
    recorded = [a for a in _jsonl(run / "actions.jsonl") if a["type"] in ("click", "input", "change")]
    assert recorded, "the random agent's actions reached the page"

    run = out / "runs" / "social-status-update" / "null" / "trial-1"
    m = json.loads((run / "manifest.json").read_text())
    assert m["status"] == "ok" and m["agent_result"]["steps"] == 0 and "null agent did nothing" in m["stop_reason"]
    assert not [a for a in _jsonl(run / "actions.jsonl") if a["type"] in ("click", "input")]
    rows = {r["label"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    assert rows["null"]["intercepted"] is False  # no false positive: the spec's rule did not fire on its own
