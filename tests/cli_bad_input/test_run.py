"""`clawrec run` with bad input (refused before a browser starts: one line, exit 2, nothing changed), and Ctrl-C
during a run (the one real browser of these tests): exit 130, one line, the run directory finalized."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import pytest

from tests.cli_bad_input.helpers import RUN, RUN_ARGS, SITES, SPEC, Case, check_bad_input, folder, tree, write


CASES = [
    # run: everything here is refused before a browser starts
    Case("run-missing-spec", ["run", "nope.yaml", "--agent", "command", "--agent-cmd", "true"], ["nope.yaml"]),
    Case("run-spec-is-a-folder", ["run", "real/specs", "--agent", "command"], ["TASK", "real/specs"]),
    Case("run-bad-spec", ["run", "b.yaml", "--agent", "command"], ["b.yaml:1", "id", "missing"],
         setup=write("b.yaml", "version: 1\n")),
    Case("run-unknown-agent", ["run", SPEC, "--agent", "nope", "--headless"], ["unknown agent 'nope'"], env=SITES),
    Case("run-command-without-cmd", ["run", SPEC, "--agent", "command", "--headless"], ["--agent-cmd"], env=SITES),
    Case("run-replay-from-not-a-run", ["run", SPEC, "--agent", "replay", "--from", "d", "--headless"],
         ["--from d", "actions.jsonl"], setup=folder("d"), env=SITES),
    Case("run-negative-time-limit", [*RUN_ARGS, "--time-limit", "-1"], ["--time-limit", "-1"], env=SITES),
    Case("run-zero-time-limit", [*RUN_ARGS, "--time-limit", "0"], ["--time-limit"], env=SITES),
    Case("run-negative-grace", [*RUN_ARGS, "--grace", "-1"], ["--grace", "-1"], env=SITES),
    Case("run-nan-grace", [*RUN_ARGS, "--grace", "nan"], ["--grace", "finite"], env=SITES),
    Case("run-dir-not-empty", [*RUN_ARGS, "--run-dir", RUN], [f"--run-dir {RUN}", "not empty"], env=SITES),
    Case("run-dir-is-a-file", [*RUN_ARGS, "--run-dir", f"{RUN}/manifest.json"], ["--run-dir", "is a file"],
         env=SITES),
    Case("run-dir-under-a-file", [*RUN_ARGS, "--run-dir", f"{RUN}/manifest.json/x"],
         ["--run-dir", "manifest.json is a file"], env=SITES),
    Case("runs-dir-under-a-file", [*RUN_ARGS, "--runs-dir", "f/runs"], ["--runs-dir f/runs", "is a file"],
         setup=write("f", "x"), env=SITES),
    Case("run-reference-missing", [*RUN_ARGS, "--reference", "nope"], ["--reference", "nope"], env=SITES),
    Case("run-reference-not-a-run", [*RUN_ARGS, "--reference", "d"], ["--reference", "d: not a run directory"],
         setup=folder("d"), env=SITES),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_line_and_changes_nothing(case: Case, root: Path):
    check_bad_input(case, root)


def _run_and_interrupt(root: Path, ready: Callable[[Path], bool]) -> tuple[int, str]:
    """`clawrec run` with an agent that waits; SIGINT once `ready(run_dir)`; (exit code, stderr after that)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "clawrec.cli", "run", SPEC, "--agent", "command", "--agent-cmd", "sleep 60",
         "--serve-sites", "--headless", "--no-judge", "--run-dir", "out"],
        cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith(("CLAWREC_SITES", "ANTHROPIC_"))},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # a background shell may ignore SIGINT
    try:
        deadline = time.monotonic() + 60
        while not ready(root / "out"):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, err


def _has_records(path: Path) -> bool:
    return path.exists() and bool(path.read_text().strip())


def test_ctrl_c_during_run_finalizes_and_keeps_the_run_dir(root: Path):
    """SIGINT while the agent works (the start page is recorded): exit 130, `clawrec: interrupted` as the one
    error line, the manifest says so, every layer file is there, the inputs are untouched."""
    inputs = tree(root)
    # the agent's own log exists once the "agent started" line is out (the start page is recorded before that)
    code, err = _run_and_interrupt(root, lambda run: _has_records(run / "actions.jsonl")
                                   and (run / "agent.stdout.log").exists())
    assert code == 130, err
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert "agent started" in lines[0] and lines[1:] == ["clawrec: interrupted"], err
    run_dir = root / "out"
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert (manifest["status"], manifest["stop_reason"]) == ("crashed", "interrupted")
    for name in ("http.jsonl", "actions.jsonl", "interceptions.jsonl", "agent.jsonl", "task.json"):
        assert (run_dir / name).is_file(), name
    assert json.loads((run_dir / "actions.jsonl").read_text().splitlines()[0])["type"]  # kept, not truncated
    assert {k: v for k, v in tree(root).items() if not k.startswith("out")} == inputs


def test_ctrl_c_while_the_recorder_starts_keeps_a_manifest(root: Path):
    """SIGINT as soon as the run directory has its first manifest (browser, channel and screenshots still
    starting): the same one line, no asyncio traceback from the cancelled start, a crashed manifest."""
    code, err = _run_and_interrupt(root, lambda run: (run / "manifest.json").exists())
    assert code == 130, err
    assert "Traceback" not in err, err
    assert err.strip().splitlines()[-1] == "clawrec: interrupted", err
    assert json.loads((root / "out" / "manifest.json").read_text())["status"] == "crashed"
