"""`clawrec judge` on fixture runs: one run, a folder of runs, bad input; payload and LLM judges."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from clawrec.cli import main
from evaluator.verdict import read_verdict
from tests.evaluator.anthropic_server import ScriptedAnthropic
from tests.evaluator.helpers import RUNS, labels
from tests.evaluator.judge_script import good_judge


@pytest.fixture
def runs(tmp_path):
    """A writable copy of the whole fixture tree (manifests and specs point at each other relatively)."""
    root = tmp_path / "runs"
    shutil.copytree(RUNS, root)
    return root


def test_one_run_writes_verdict_and_prints_one_line(runs, capsys):
    assert main(["judge", str(runs / "travel/a02-date-us")]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and out[0].endswith("PASS (payload)")
    v = read_verdict(runs / "travel/a02-date-us")
    assert v["verdict"] == "PASS" and v["judge"] == "payload" and v["task_id"] == "travel-flight-oneway"
    assert v["reference"].endswith("travel/reference")


def test_folder_of_runs_judged_against_their_references(runs, capsys):
    assert main(["judge", str(runs)]) == 0
    out = capsys.readouterr().out
    want = {e["run"]: e["label"] for e in labels()}
    assert f"judged {len(want)} runs" in out
    for rel, label in want.items():
        assert read_verdict(runs / rel)["verdict"] == label, rel
    assert not (runs / "travel/reference/verdict.json").exists()
    assert not (runs / "contact/reference/verdict.json").exists()


def test_bad_input_gets_clear_messages_and_still_a_verdict(runs, capsys):
    assert main(["judge", str(runs / "travel/a10-crashed-corrupt")]) == 0
    cap = capsys.readouterr()
    assert "PASS" in cap.out and "note: interceptions.jsonl: line 2 is corrupt (skipped)" in cap.err
    assert main(["judge", str(runs / "travel/a09-no-submission")]) == 0
    assert "FAIL (payload) — failed: Terminal request sent (terminal request never sent" in capsys.readouterr().out
    # missing reference: the payload judge still judges against expect, and says so
    assert main(["judge", str(runs / "travel/a06-wrong-cabin"), "--reference", str(runs / "nowhere")]) == 0
    cap = capsys.readouterr()
    assert "FAIL" in cap.out and "cabin" in cap.out and "reference unusable" in cap.err
    spec = runs / "specs/travel-flight-oneway.yaml"
    (runs / "noref").mkdir()
    no_ref = runs / "noref/travel-flight-oneway.yaml"
    no_ref.write_text("".join(l for l in spec.read_text().splitlines(True) if not l.startswith("reference:")))
    assert main(["judge", str(runs / "travel/a03-date-long"), "--spec", str(no_ref)]) == 0
    cap = capsys.readouterr()
    assert "PASS" in cap.out and "no reference run given" in cap.err
    assert read_verdict(runs / "travel/a03-date-long")["reference"] is None


def test_not_a_run_and_bad_spec_are_one_line_exit_2(tmp_path, runs, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["judge", str(tmp_path / "empty")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not a run directory" in err[0]
    bad = runs / "specs/bad.yaml"
    bad.write_text("version: 1\nid: x\n")
    assert main(["judge", str(runs / "travel/a01-correct"), "--spec", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"clawrec: {bad}")


def test_console_script_no_traceback(tmp_path):
    (tmp_path / "x").mkdir()
    out = subprocess.run([sys.executable, "-m", "clawrec.cli", "judge", str(tmp_path / "x")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "Traceback" not in out.stderr and out.stderr.startswith("clawrec: ")


@pytest.mark.parametrize("kind", ["llm", "both"])
def test_llm_and_both_judges_through_the_cli(runs, capsys, kind, tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    with ScriptedAnthropic(good_judge) as srv:
        rc = main(["judge", str(runs / "travel/a05-wrong-date"), "--judge", kind, "--base-url", srv.base_url,
                   "--cache-dir", str(tmp_path / "cache"), "--model", "claude-haiku-4-5"])
    assert rc == 0
    line = capsys.readouterr().out.strip()
    assert f"FAIL ({kind})" in line and "input tokens" in line
    v = read_verdict(runs / "travel/a05-wrong-date")
    assert v["judge"] == kind and v["model"] == "claude-haiku-4-5"
    assert v["usage"]["input_tokens"] == sum(r["input_tokens"] for r in srv.requests)
    assert srv.requests[0]["body"]["model"] == "claude-haiku-4-5"
    if kind == "both":
        assert set(v["judges"]) == {"payload", "llm"}
        assert v["judges"]["payload"]["verdict"] == "FAIL" and v["judges"]["llm"]["verdict"] == "FAIL"


def test_missing_api_key_is_one_line_exit_1(runs, capsys, monkeypatch):
    for var in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_PROFILE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("ANTHROPIC_CONFIG_DIR", str(runs / "no-config"))
    assert main(["judge", str(runs / "travel/a01-correct"), "--judge", "llm", "--base-url", "http://127.0.0.1:9"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "set ANTHROPIC_API_KEY" in err[0]


def test_llm_api_failure_is_one_line_exit_1(runs, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    with ScriptedAnthropic(lambda body, srv: {"status": 529}) as srv:
        rc = main(["judge", str(runs / "travel/a01-correct"), "--judge", "llm", "--base-url", srv.base_url,
                   "--no-cache", "--max-retries", "1"])
    assert rc == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "answered HTTP 529 after 2 attempts: overloaded_error" in err[0]
    assert not (runs / "travel/a01-correct/verdict.json").exists()
