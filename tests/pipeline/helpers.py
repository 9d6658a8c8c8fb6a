"""Running `clawrec run` from tests: in-process (fast) or as a subprocess (exact stdout/stderr, concurrency)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from clawrec.cli import main
from rundir.records import read_jsonl

REPO = Path(__file__).resolve().parents[2]
SIGNUP_AGENT = Path(__file__).resolve().parent / "agent_scripts" / "signup_agent.py"


def signup_cmd(*args: str) -> str:
    return " ".join([sys.executable, str(SIGNUP_AGENT), *args])


def run_cli(args: list[str], capsys) -> tuple[int, list[str], list[str]]:
    """`clawrec ARGS` in this process: (exit code, stdout lines, stderr lines)."""
    code = main(["run", *args])
    out, err = capsys.readouterr()
    return code, out.strip().splitlines(), err.strip().splitlines()


def spawn_cli(args: list[str], **kw: Any) -> subprocess.Popen:
    """`clawrec run ARGS` as a terminal's foreground job: SIGINT at its default even when the suite runs as a
    background job of a non-interactive shell (which ignores SIGINT, and an ignored SIGINT stays ignored)."""
    kw.setdefault("preexec_fn", lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    return subprocess.Popen([sys.executable, "-m", "clawrec.cli", "run", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=REPO, **kw)


def manifest(run_dir: Path) -> dict[str, Any]:
    return json.loads((Path(run_dir) / "manifest.json").read_text())


def jsonl(run_dir: Path, name: str) -> list[dict[str, Any]]:
    records, bad = read_jsonl(Path(run_dir) / name)
    assert not bad, f"{name}: unparsable lines {bad}"
    return records
