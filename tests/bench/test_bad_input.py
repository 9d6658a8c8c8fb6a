"""Bad input to `clawrec bench` / `judge-agreement`: one `clawrec: …` line, exit 2, before any run starts."""

from __future__ import annotations

import pytest

from clawrec.cli import main
from tests.bench.helpers import DEMO

SPEC = str(DEMO / "social-status-update.yaml")


@pytest.mark.parametrize("args, message", [
    ([], "give SPECS (files or folders), a bench folder to resume, or `report DIR`"),
    ([SPEC], "--agent is required (one or more)"),
    ([SPEC, "--agent", "nobody"], "unknown agent 'nobody'"),
    ([SPEC, "--agent", "command"], "agent 'command' needs --agent-cmd"),
    ([SPEC, "--agent", "null", "--category", "space"], "--category space: not one of daily|finance|"),
    ([SPEC, "--agent", "null", "--ids", "zzz-*"], "no spec left in"),
    ([SPEC, "--agent", "null", "--from", "/nonexistent-run"], "--from /nonexistent-run: not a directory"),
    ([SPEC, "--agent", "null", "--address", "127.0.0.1:1"], "--address is for --executor ray"),
    (["/nonexistent-spec.yaml", "--agent", "null"], "/nonexistent-spec.yaml: no such file or folder"),
    (["report", "/tmp"], "/tmp: not a bench folder (no bench.json)"),
    ([SPEC, "--agent", "a", "--agent", "b", "--agent", "c", "--model", "m1", "--model", "m2"], "3 --agent and 2 --model"),
])
def test_bad_bench_input_is_one_line_exit_2(tmp_path, capsys, args, message):
    code = main(["bench", *args, "--out", str(tmp_path / "out")] if args and args[0] != "report" else ["bench", *args])
    _, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1 and err.startswith("clawrec: ") and message in err, err
    assert not (tmp_path / "out" / "runs").exists()


def test_bad_judge_agreement_input(tmp_path, capsys):
    assert main(["judge-agreement", str(tmp_path / "none.csv"), str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"clawrec: {tmp_path / 'none.csv'}: no such file\n"
