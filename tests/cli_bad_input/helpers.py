"""Bad input to every command, through the real CLI (`python -m clawrec.cli` in a subprocess): one line
`clawrec: …` (or validate's `FILE:LINE: field: …`) naming the file and field, exit 2 for bad input and 1 for an
unreachable browser or API, no traceback, and not one byte of the recorded runs changed. Inputs are copies of
tests/fixtures/runs/real (never the fixtures themselves); no browser except the Ctrl-C tests (test_run.py).

This module is what the tests of every command (tests/cli_bad_input/test_COMMAND.py) share: the CLI runner, the
damage a case sets up, and the two checks (one line and nothing changed; tolerated damage noted)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "runs" / "real"
RUN = "real/travel/r01-correct"
REF = "real/travel/reference"
SPEC = "real/specs/travel-flight-oneway.yaml"
S_SPEC = "real/specs/s.yaml"
LAYERS = ("http.jsonl", "actions.jsonl", "interceptions.jsonl", "agent.jsonl", "screenshots/screenshots.jsonl")
DERIVED = {"verdict.json", "diagnosis.json", "report.html"}  # outputs of judge/diagnose/view, not recordings
FAKE_SITES = json.dumps({name: "http://127.0.0.1:9/" for name in ("travel", "jobs", "shop", "shop_pay", "social")})


def closed_port() -> int:
    """A loopback port nothing listens on (bound to port 0, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tree(root: Path) -> dict[str, str]:
    """relative path -> sha256 of every file (and '<dir>' for every folder) under root."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        out[rel] = "<dir>" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def clawrec(args: list[str], cwd: Path, env: dict[str, str] | None = None,
            timeout: float = 60) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("CLAWREC_SITES", "ANTHROPIC_", "OPENAI_"))}
    return subprocess.run([sys.executable, "-m", "clawrec.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env={**base, **(env or {})})


def write(rel: str, data: str | bytes) -> Callable[[Path], None]:
    def setup(root: Path) -> None:
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data) if isinstance(data, bytes) else p.write_text(data)
    return setup


def folder(rel: str) -> Callable[[Path], None]:
    """A folder where a file is expected (replacing the file if there is one)."""
    def setup(root: Path) -> None:
        p = root / rel
        if p.is_file():
            p.unlink()
        p.mkdir(parents=True, exist_ok=True)
    return setup


def remove(*rels: str) -> Callable[[Path], None]:
    def setup(root: Path) -> None:
        for rel in rels:
            p = root / rel
            shutil.rmtree(p) if p.is_dir() else p.unlink(missing_ok=True)
    return setup


def insert_line(rel: str, data: bytes, at: int) -> Callable[[Path], None]:
    """Put a (bad) line at 0-based line index `at` of a JSONL file; at=-1 appends it (a cut last line)."""
    def setup(root: Path) -> None:
        p = root / rel
        lines = p.read_bytes().splitlines(keepends=True)
        lines.insert(len(lines) if at < 0 else at, data)
        p.write_bytes(b"".join(lines))
    return setup


def manifest_with(**fields: object) -> Callable[[Path], None]:
    """The run's manifest with some fields replaced (dotted: task.spec)."""
    def setup(root: Path) -> None:
        p = root / RUN / "manifest.json"
        m = json.loads(p.read_text())
        for key, value in fields.items():
            *parents, last = key.split("__")
            target = m
            for k in parents:
                target = target[k]
            target[last] = value
        p.write_text(json.dumps(m))
    return setup


def both(*setups: Callable[[Path], None]) -> Callable[[Path], None]:
    def setup(root: Path) -> None:
        for s in setups:
            s(root)
    return setup


def spec_plus(line: str) -> Callable[[Path], None]:
    """The real spec (as real/specs/s.yaml, so its reference resolves) with one more top-level line."""
    def setup(root: Path) -> None:
        text = (root / SPEC).read_text().replace("id: travel-flight-oneway", "id: s")
        (root / S_SPEC).write_text(text + line + "\n")
    return setup


@dataclass
class Case:
    id: str
    args: list[str]
    expect: list[str]                    # substrings of the one stderr line (the file, the field)
    code: int = 2
    setup: Callable[[Path], None] | None = None
    prefix: str = "clawrec: "            # validate / import-clawbench print `FILE:LINE: field: message`
    env: dict[str, str] = field(default_factory=dict)


SITES = {"CLAWREC_SITES": FAKE_SITES}
RUN_ARGS = ["run", SPEC, "--agent", "command", "--agent-cmd", "true", "--headless", "--no-judge"]
WRONG_TYPES = b'{"t": "x", "url": 5, "method": [1], "headers": "h", "seq": "a", "type": 7, "role": 1, "path": 9}\n'



def check_bad_input(case: Case, root: Path, http_server: str = "") -> None:
    """One line on stderr (prefix, the expected words), the expected exit code, no traceback, nothing changed."""
    if case.setup:
        case.setup(root)
    before = tree(root)
    args = [a.format(port=closed_port(), http_server=http_server) for a in case.args]
    out = clawrec(args, root, case.env)
    lines = out.stderr.strip().splitlines()
    assert "Traceback" not in out.stderr, out.stderr
    assert out.returncode == case.code, (out.returncode, out.stderr)
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith(case.prefix), lines[0]
    for want in case.expect:
        assert want in lines[0], (want, lines[0])
    assert tree(root) == before  # nothing written, nothing removed: not even an empty output folder


def recorded(run: Path) -> dict[str, str]:
    return {k: v for k, v in tree(run).items() if k not in DERIVED}


# A crashed run may end in a cut line, and a hand-edited record may hold a wrong type: the judge and the report
# still work (documented in rundir/reader.py), say what was skipped (file and line), and change no recording.
TOLERATED_PARAMS = "name,args,layer,line,at,note"


def check_tolerated(args: list[str], layer: str, line: bytes, at: int, note: str | None, root: Path) -> None:
    """`line` put into `layer` at `at`: the command still succeeds, notes the damage and changes no recording."""
    insert_line(f"{RUN}/{layer}", line, at)(root)
    run = root / RUN
    before = recorded(run)
    n = len((run / layer).read_bytes().splitlines())
    out = clawrec(args, root)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr, out.stderr
    if note:
        assert note.format(n=n) in out.stderr, out.stderr
    assert recorded(run) == before
    written = {"judge": "verdict.json", "view": "report.html", "diagnose": "diagnosis.json"}[args[0]]
    assert (run / written).stat().st_size > 0
