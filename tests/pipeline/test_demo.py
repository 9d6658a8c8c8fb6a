"""`make demo`'s script: with no key it replays the committed reference headed on Xvfb, judges it, and prints
the run directory last (the payload judge passes, the booking was caught)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.pipeline.helpers import REPO, jsonl, manifest


def test_demo_script_without_key(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")}
    env["CLAWREC_DEMO_RUNS_DIR"] = str(tmp_path)
    proc = subprocess.run(["bash", str(REPO / "scripts" / "demo.sh")], env=env, capture_output=True, text=True,
                          timeout=240, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    run_dir = Path(lines[-1])
    assert run_dir.parent.parent == tmp_path and "replay" in run_dir.name
    assert "verdict: PASS (payload judge)" in proc.stdout and f"{run_dir}/video.mp4" in proc.stdout
    m = manifest(run_dir)
    assert m["status"] == "intercepted" and m["agent"] == "replay" and m["layers"]["video"]["duration"] > 1
    reference = jsonl(REPO / "runs" / "reference" / "travel-flight-oneway", "interceptions.jsonl")
    assert jsonl(run_dir, "interceptions.jsonl")[0]["body"] == reference[0]["body"]
    assert json.loads((run_dir / "verdict.json").read_text())["verdict"] == "PASS"
