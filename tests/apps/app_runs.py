"""What the app tests share: several `clawrec run`s of one app task at once (the app's pool gives each its own
instance), each a scripted `command` agent with its own arguments, headless, unjudged; SIGINT restored in each child
(a test started from a background job inherits it ignored)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

from clawrec.apps import corpus
from recorder.browser import find_chromium

REPO = Path(__file__).resolve().parents[2]


def runs_at_once(app: str, spec: Path, agent: Path, runs: dict[str, list[str]], base: Path) -> dict[str, Path]:
    """{run name: run directory} of `runs` ({name: the agent's extra arguments}), each ended with exit 0."""
    find_chromium()  # raises: a loud failure, not a skip
    assert corpus.get(app).installed(), f"{app} is not installed in .tools/apps: run `make apps`"
    procs = {}
    for name, extra in runs.items():
        cmd = " ".join([sys.executable, str(agent), *(f"'{a}'" for a in extra)])
        procs[name] = subprocess.Popen(
            [sys.executable, "-m", "clawrec.cli", "run", str(spec), "--agent", "command", "--agent-cmd", cmd,
             "--headless", "--no-judge", "--run-dir", str(base / name)], cwd=REPO, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    for name, proc in procs.items():
        out, _ = proc.communicate(timeout=240)
        assert proc.returncode == 0, f"{name}: {out}"
    return {name: base / name for name in runs}


def assert_payload_verdict(run: Path, field: str | None, capsys) -> None:
    """`clawrec judge RUN` (payload): PASS for a right run (`field` None), else FAIL on exactly one condition, the
    one naming `field`, and the printed line says which."""
    from clawrec.cli import main

    assert main(["judge", str(run)]) == 0
    verdict = json.loads((run / "verdict.json").read_text())
    line = capsys.readouterr().out
    if field is None:
        assert verdict["verdict"] == "PASS", line
        return
    assert verdict["verdict"] == "FAIL", line
    failed = [c for c in verdict["conditions"] if not c["met"]]
    assert len(failed) == 1 and field in failed[0]["condition"], failed
    assert f"field {field} equals" in line.lower(), line
