"""Bad input to every command, through the real CLI (`python -m clawrec.cli` in a subprocess): one line
`clawrec: …` (or validate's `FILE:LINE: field: …`) naming the file and field, exit 2 for bad input and 1 for an
unreachable browser or API, no traceback, and not one byte of the recorded runs changed. Inputs are copies of
tests/fixtures/runs/real (never the fixtures themselves); no browser except the one Ctrl-C test."""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest

REAL = Path(__file__).parent / "fixtures" / "runs" / "real"
RUN = "real/travel/r01-correct"
REF = "real/travel/reference"
SPEC = "real/specs/travel-flight-oneway.yaml"
S_SPEC = "real/specs/s.yaml"
LAYERS = ("http.jsonl", "actions.jsonl", "interceptions.jsonl", "agent.jsonl", "screenshots/screenshots.jsonl")
DERIVED = {"verdict.json", "diagnosis.json", "report.html"}  # outputs of judge/diagnose/view, not recordings
FAKE_SITES = json.dumps({name: "http://127.0.0.1:9/" for name in ("travel", "jobs", "shop", "shop_pay", "social")})


# --- helpers ----------------------------------------------------------------------------------------------------

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

CASES = [
    # validate: every problem is `FILE:LINE: field: message`
    Case("validate-missing", ["validate", "nope.yaml"], ["nope.yaml", "path", "no such file"], prefix="nope.yaml"),
    Case("validate-empty", ["validate", "e.yaml"], ["e.yaml:1", "empty file"], setup=write("e.yaml", ""),
         prefix="e.yaml"),
    Case("validate-not-a-mapping", ["validate", "l.yaml"], ["l.yaml:1", "spec", "mapping"],
         setup=write("l.yaml", "- a\n- b\n"), prefix="l.yaml"),
    Case("validate-non-utf8", ["validate", "n.yaml"], ["n.yaml:3", "not UTF-8"],
         setup=write("n.yaml", b"version: 1\nid: n\ninstruction: \xff\xfe\n"), prefix="n.yaml"),
    Case("validate-folder-named-like-a-spec", ["validate", "x.yaml"], ["x.yaml", "no spec files"],
         setup=folder("x.yaml/sub"), prefix="x.yaml"),
    Case("validate-unknown-key", ["validate", S_SPEC], [f"{S_SPEC}:41", "bogus", "unknown key"],
         setup=spec_plus("bogus: 1"), prefix=S_SPEC),
    Case("validate-wrong-type", ["validate", S_SPEC], [f"{S_SPEC}:41", "exact", "list"],
         setup=spec_plus("exact: 5"), prefix=S_SPEC),
    # import-clawbench
    Case("import-missing", ["import-clawbench", "nope", "out"], ["nope", "no such file"]),
    Case("import-not-json", ["import-clawbench", "t/task.json", "out"], ["t/task.json:1", "json"],
         setup=write("t/task.json", "{nope"), prefix="t/task.json"),
    Case("import-empty", ["import-clawbench", "t/task.json", "out"], ["t/task.json:1", "json"],
         setup=write("t/task.json", ""), prefix="t/task.json"),
    Case("import-non-utf8", ["import-clawbench", "t/task.json", "out"], ["t/task.json:1", "not UTF-8"],
         setup=write("t/task.json", b'{"a": "\xff"}'), prefix="t/task.json"),
    Case("import-not-a-mapping", ["import-clawbench", "t/task.json", "out"], ["t/task.json:1", "mapping"],
         setup=write("t/task.json", "[1, 2]"), prefix="t/task.json"),
    Case("import-out-under-a-file", ["import-clawbench", "t/task.json", "f/out"], ["OUT f/out", "is a file"],
         setup=both(write("t/task.json", "{}"), write("f", "x"))),
    # sites
    Case("sites-bad-frozen-time", ["sites", "serve", "--frozen-time", "yesterday"], ["--frozen-time", "yesterday"]),
    Case("sites-log-under-a-file", ["sites", "serve", "--log", "f/log.jsonl"], ["--log f/log.jsonl", "is a file"],
         setup=write("f", "x")),
    Case("sites-log-is-a-folder", ["sites", "serve", "--log", "d"], ["--log", "'d' is a directory"],
         setup=folder("d")),
    Case("sites-log-is-a-recorded-layer", ["sites", "serve", "--log", f"{RUN}/http.jsonl"],
         [f"--log {RUN}/http.jsonl", "recorded layer"]),
    # intercept
    Case("intercept-missing-spec", ["intercept", "nope.yaml", "--browser", "http://127.0.0.1:9", "--out", "o"],
         ["nope.yaml", "path"]),
    Case("intercept-placeholders-without-sites", ["intercept", SPEC, "--browser", "http://127.0.0.1:9", "--out", "o"],
         [SPEC, "CLAWREC_SITES"]),
    Case("intercept-bad-browser-url", ["intercept", SPEC, "--browser", "ftp://x", "--out", "o"],
         ["--browser", "ftp://x"], env=SITES),
    Case("intercept-out-under-a-file", ["intercept", SPEC, "--browser", "http://127.0.0.1:9", "--out", "f/o"],
         ["--out f/o", "is a file"], setup=write("f", "x"), env=SITES),
    Case("intercept-out-is-a-recorded-run", ["intercept", SPEC, "--browser", "http://127.0.0.1:9", "--out", RUN],
         [f"--out {RUN}", "already holds", "interceptions.jsonl"], env=SITES),
    Case("intercept-unreachable-browser", ["intercept", SPEC, "--browser", "http://127.0.0.1:{port}", "--out", "o"],
         ["cannot attach to the browser at http://127.0.0.1:"], code=1, env=SITES),
    Case("intercept-not-a-browser", ["intercept", SPEC, "--browser", "{http_server}", "--out", "o"],
         ["cannot attach to the browser at http://127.0.0.1:"], code=1, env=SITES),
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
    # judge
    Case("judge-missing", ["judge", "nope"], ["PATH", "nope"]),
    Case("judge-a-file", ["judge", f"{RUN}/manifest.json"], ["manifest.json", "is a file"]),
    Case("judge-not-a-run", ["judge", "d"], ["d: not a run directory"], setup=folder("d")),
    Case("judge-manifest-not-json-no-layers", ["judge", RUN], ["manifest.json", "not a run directory"],
         setup=both(remove(*[f"{RUN}/{x}" for x in LAYERS]), write(f"{RUN}/manifest.json", "{nope"))),
    Case("judge-manifest-not-json", ["judge", RUN], [RUN, "manifest.json: unreadable", "nothing to judge against"],
         setup=write(f"{RUN}/manifest.json", "{nope")),
    Case("judge-manifest-non-utf8", ["judge", RUN], ["manifest.json: unreadable", "utf-8"],
         setup=write(f"{RUN}/manifest.json", b'{"a": "\xff"}')),
    Case("judge-manifest-lacks-fields", ["judge", RUN], [RUN, "manifest.json names no spec", "--spec"],
         setup=write(f"{RUN}/manifest.json", "{}")),
    Case("judge-manifest-not-an-object", ["judge", RUN], ["manifest.json: unreadable", "not a JSON object"],
         setup=write(f"{RUN}/manifest.json", "[1]")),
    Case("judge-manifest-is-a-folder", ["judge", RUN], ["manifest.json: unreadable"],
         setup=folder(f"{RUN}/manifest.json")),
    Case("judge-manifest-spec-wrong-type", ["judge", RUN], [RUN, "manifest.json: task.spec: wrong type", "--spec"],
         setup=manifest_with(task__spec=5)),
    Case("diagnose-manifest-spec-wrong-type", ["diagnose", RUN], [RUN, "no reference run"],
         setup=manifest_with(task__spec=["a"])),
    *[Case(f"judge-layer-is-a-folder-{layer.split('/')[-1]}", ["judge", RUN], [f"{RUN}/{layer}", "cannot read"],
           setup=folder(f"{RUN}/{layer}")) for layer in LAYERS],
    Case("judge-verdict-is-a-folder", ["judge", RUN], [f"{RUN}/verdict.json", "folder"],
         setup=folder(f"{RUN}/verdict.json")),
    Case("judge-spec-missing", ["judge", RUN, "--spec", "nope.yaml"], ["--spec", "nope.yaml"]),
    Case("judge-spec-not-a-mapping", ["judge", RUN, "--spec", "b.yaml"], ["b.yaml:1", "mapping"],
         setup=write("b.yaml", "- 1\n")),
    Case("judge-spec-reference-missing", ["judge", RUN], [SPEC.split("/")[-1], "reference", "not found"],
         setup=remove(REF)),
    Case("judge-negative-max-retries", ["judge", RUN, "--max-retries", "-1"], ["--max-retries"]),
    Case("judge-negative-token-budget", ["judge", RUN, "--max-input-tokens", "-5"], ["--max-input-tokens"]),
    Case("judge-llm-unreachable", ["judge", RUN, "--judge", "llm", "--no-cache", "--max-retries", "0",
                                   "--base-url", "http://127.0.0.1:{port}"], ["LLM judge"], code=1,
         env={"ANTHROPIC_API_KEY": "test-key"}),
    # diagnose
    Case("diagnose-missing", ["diagnose", "nope"], ["nope: not a run directory"]),
    Case("diagnose-not-a-run", ["diagnose", "d"], ["d: not a run directory"], setup=folder("d")),
    Case("diagnose-reference-missing", ["diagnose", RUN, "--reference", "nope"], ["reference nope"]),
    Case("diagnose-reference-not-a-run", ["diagnose", RUN, "--reference", "d"], ["d: not a run directory"],
         setup=folder("d")),
    Case("diagnose-no-reference", ["diagnose", RUN], [RUN, "no reference run", "--reference"], setup=remove(REF)),
    Case("diagnose-own-reference", ["diagnose", RUN, "--reference", RUN], [RUN, "its own reference"]),
    Case("diagnose-spec-missing", ["diagnose", RUN, "--spec", "nope.yaml"], ["nope.yaml"]),
    Case("diagnose-diagnosis-is-a-folder", ["diagnose", RUN], [f"{RUN}/diagnosis.json", "folder"],
         setup=folder(f"{RUN}/diagnosis.json")),
    *[Case(f"diagnose-corrupt-line-{layer.split('/')[-1]}", ["diagnose", RUN], [f"{RUN}/{layer}:1", "corrupt"],
           setup=insert_line(f"{RUN}/{layer}", b'{"cut": \n', 0)) for layer in LAYERS],
    # view
    Case("view-missing", ["view", "nope"], ["nope: not a run directory"]),
    Case("view-not-a-run", ["view", "d"], ["d: not a run directory"], setup=folder("d")),
    Case("view-out-under-a-file", ["view", RUN, "--out", "f/r.html"], ["--out f/r.html", "is a file"],
         setup=write("f", "x")),
    Case("view-out-is-a-recorded-file", ["view", RUN, "--out", f"{RUN}/manifest.json"],
         [f"--out {RUN}/manifest.json", "not an HTML page"]),
    Case("view-report-is-a-folder", ["view", RUN], [f"{RUN}/report.html", "folder"],
         setup=folder(f"{RUN}/report.html")),
    Case("view-corrupt-line", ["view", RUN], [f"{RUN}/actions.jsonl:2", "corrupt"],
         setup=insert_line(f"{RUN}/actions.jsonl", b"\xff{not json\n", 1)),
    # annotate
    Case("annotate-missing", ["annotate", "nope"], ["nope: not a run directory"]),
    Case("annotate-no-http-layer", ["annotate", RUN], [RUN, "http.jsonl"], setup=remove(f"{RUN}/http.jsonl")),
    Case("annotate-corrupt-line", ["annotate", RUN, "--list"], [f"{RUN}/http.jsonl:3", "corrupt"],
         setup=insert_line(f"{RUN}/http.jsonl", b'{"url": "http://x", "method": "PO\n', 2)),
    Case("annotate-manifest-non-utf8", ["annotate", RUN], [f"{RUN}/manifest.json", "unreadable"],
         setup=write(f"{RUN}/manifest.json", b"\xff")),
    Case("annotate-pick-zero", ["annotate", RUN, "--pick", "0", "--out", "o/x.yaml"], ["--pick", "0"]),
    Case("annotate-pick-out-of-range", ["annotate", RUN, "--pick", "99", "--out", "o/x.yaml"], ["--pick 99"]),
    Case("annotate-bad-category", ["annotate", RUN, "--category", "nope"], ["--category", "nope"]),
    Case("annotate-out-exists", ["annotate", RUN, "--out", "x.yaml"], ["x.yaml", "already exists"],
         setup=write("x.yaml", "keep me\n")),
    Case("annotate-out-under-a-file", ["annotate", RUN, "--out", "f/x.yaml"], ["--out f/x.yaml", "is a file"],
         setup=write("f", "x")),
]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A copy of one travel run, its reference and the specs (the spec's `reference: ../travel/reference`
    resolves); small, because every case hashes the whole tree twice."""
    for part in (RUN, REF, "real/specs"):
        shutil.copytree(REAL.parent / part, tmp_path / part)
    return tmp_path


@pytest.fixture(scope="module")
def http_server():
    """A real HTTP server that is not a browser (404 for /json/version)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_line_and_changes_nothing(case: Case, root: Path, http_server: str):
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
TOLERATED = [
    ("judge-cut-last-line", ["judge", RUN], "actions.jsonl", b'{"t": 99.5, "type": "cli', -1,
     "actions.jsonl: line {n} is corrupt (skipped)"),
    ("judge-wrong-types", ["judge", RUN], "agent.jsonl", WRONG_TYPES, 1,
     "agent.jsonl: line 2: t, role: wrong type (ignored)"),
    ("view-wrong-types", ["view", RUN], "agent.jsonl", WRONG_TYPES, 1, None),
    ("view-wrong-types-http", ["view", RUN], "http.jsonl", WRONG_TYPES, 1, None),
    ("diagnose-wrong-types", ["diagnose", RUN], "actions.jsonl", WRONG_TYPES, 1, None),
]


@pytest.mark.parametrize("name,args,layer,line,at,note", TOLERATED, ids=[t[0] for t in TOLERATED])
def test_tolerated_damage_is_noted_and_recordings_stay(name, args, layer, line, at, note, root: Path):
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


def test_wrong_typed_manifest_fields_are_noted_and_ignored(root: Path):
    manifest_with(duration="x", status=5, sites=["x"], task__id=7)(root)
    run = root / RUN
    before = recorded(run)
    out = clawrec(["view", RUN], root)
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    out = clawrec(["judge", RUN], root)
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    assert "note: manifest.json: status, sites, duration, task.id: wrong type (ignored)" in out.stderr
    assert recorded(run) == before


def test_unreadable_verdict_and_diagnosis_still_render(root: Path):
    run = root / RUN
    (run / "verdict.json").write_bytes(b"\xff not json")
    (run / "diagnosis.json").write_text("[1]")
    before = tree(run)
    out = clawrec(["view", RUN], root)
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    assert "<html" in (run / "report.html").read_text()
    after = tree(run)
    assert {k: v for k, v in after.items() if k != "report.html"} == before


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


def test_batch_judge_names_each_bad_run_and_judges_the_rest(root: Path):
    """A folder of runs with one unjudgeable run: its one line names the run and why, the others are judged,
    exit 1, and no recording changes."""
    shutil.copytree(REAL / "travel/r04-wrong-name", root / "real/travel/r04-wrong-name")
    manifest_with(task__spec=5)(root)
    runs = root / "real/travel"
    before = {d.name: recorded(d) for d in runs.iterdir()}
    out = clawrec(["judge", "real/travel"], root)
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
    errors = [line for line in out.stderr.splitlines() if line.startswith("clawrec:")]
    assert errors == [f"clawrec: {RUN}: nothing to judge against (manifest.json: task.spec: wrong type (ignored)): "
                      "no spec and no reference run; pass --spec or --reference"], out.stderr
    assert "real/travel/r04-wrong-name: FAIL" in out.stdout and "1 not judged" in out.stdout
    assert not (root / RUN / "verdict.json").exists() and not (runs / "reference/verdict.json").exists()
    assert {d.name: recorded(d) for d in runs.iterdir()} == before
