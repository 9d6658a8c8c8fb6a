"""Every malformed spec in tests/spec/malformed/ yields exactly its own `FILE:LINE: field: message` and exit 2.

Each corpus file states the line it must produce in its first line: `# expect: LINE: field: message`."""

from __future__ import annotations

import random
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from clawrec.cli import main

CORPUS = Path(__file__).parent / "malformed"
CASES = sorted(CORPUS.glob("*.yaml"))
LINE_FORMAT = r"^.+:\d+: [\w.$-]+: .+$"


def expected(path: Path) -> str:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# expect: "), path
    return f"{path}:{first.removeprefix('# expect: ')}"


def test_corpus_has_at_least_15_distinct_mistakes():
    messages = {expected(p).split(":", 1)[1].split(": ", 1)[1] for p in CASES}
    assert len(CASES) >= 15 and len(messages) == len(CASES)


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_malformed_spec_reports_its_line_and_exits_2(path, capsys):
    assert main(["validate", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [expected(path)]
    assert captured.out == ""


def test_whole_corpus_reports_every_file_in_one_run(capsys):
    assert main(["validate", str(CORPUS)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert sorted(err) == sorted(expected(p) for p in CASES)


def test_console_script_prints_no_traceback(tmp_path):
    garbage = tmp_path / "garbage.yaml"
    garbage.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe")
    clawrec = Path(sys.executable).with_name("clawrec")
    run = subprocess.run([str(clawrec), "validate", str(garbage), str(CASES[0])], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    assert run.stderr.splitlines() == [f"{garbage}:1: yaml: not UTF-8 text (byte 0x89)", expected(CASES[0])]


@pytest.mark.parametrize("seed", range(12))
def test_random_garbage_never_tracebacks(seed, tmp_path, capsys):
    rng = random.Random(seed)
    alphabet = [b"{", b"}", b"[", b"]", b":", b"-", b" ", b"\n", b"&a", b"*a", b"!!", b"'", b'"', b"#", b"|",
                b"version: 1\n", b"id: x\n", b"\t", b"\x00", b"\xff", b"%YAML 1.1\n", b"---\n", b"? ", b"intercept:\n"]
    data = b"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 200)))
    if seed % 3 == 0:
        data = bytes(rng.getrandbits(8) for _ in range(300))
    path = tmp_path / "x.yaml"
    path.write_bytes(data)
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err and all(line.startswith(f"{path}:") for line in err)
    assert all(re.match(LINE_FORMAT, line) for line in err), err


@pytest.mark.parametrize("content,line", [
    (b"", "1: spec: empty file: expected a mapping that starts with 'version: 1'"),
    (b"- a\n- b\n", "1: spec: must be a mapping, got a list"),
    (b"just a sentence\n", "1: spec: must be a mapping, got a string"),
    (b"version: 1\nid: x\x00\n", "2: yaml: control character 0x00 is not allowed"),
    (b"[" * 3000 + b"]" * 3000, "1: yaml: nested too deeply"),
])
def test_garbage_files(content, line, tmp_path, capsys):
    path = tmp_path / "x.yaml"
    path.write_bytes(content)
    assert main(["validate", str(path)]) == 2
    assert capsys.readouterr().err.splitlines() == [f"{path}:{line}"]


def test_alias_bomb_is_cheap(tmp_path, capsys):
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    path = tmp_path / "bomb.yaml"
    path.write_text("version: 1\nid: bomb\ninstruction: x\nstart_url: http://127.0.0.1/\nuser:\n"
                    + "".join(f"  {line}\n" for line in lines))
    # 9^10 items once expanded: `validate` passed it (and `run` grew to 3.1 GB in json.dumps); now both refuse it,
    # in one line, without expanding it.
    start = time.monotonic()
    expected = [f"{path}:12: yaml: aliases expand this value to more than 5,000,000 items and characters "
                f"(a 'billion laughs'?); docs/reference/limits.md"]
    assert main(["validate", str(path)]) == 2
    assert capsys.readouterr().err.splitlines() == expected
    assert main(["run", str(path), "--agent", "command", "--agent-cmd", "true", "--runs-dir", str(tmp_path)]) == 2
    assert capsys.readouterr().err.splitlines() == ["clawrec: " + expected[0]]
    assert time.monotonic() - start < 20


def test_missing_path_is_one_line(tmp_path, capsys):
    assert main(["validate", str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err.splitlines() == [f"{tmp_path / 'nope'}: path: no such file or directory"]


def test_empty_folder_is_an_error(tmp_path, capsys):
    assert main(["validate", str(tmp_path)]) == 2
    assert capsys.readouterr().err.splitlines() == [f"{tmp_path}: path: no spec files (*.yaml) in this folder"]
