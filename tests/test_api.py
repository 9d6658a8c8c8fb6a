"""The public Python API: its names are pinned, and `run_task` runs the demo task end to end (replay agent)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

import clawrec

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "specs/demo/travel-flight-oneway.yaml"
REFERENCE = ROOT / "runs/reference/travel-flight-oneway"

PUBLIC = ["ClawrecError", "Interceptor", "RunDir", "RunOutcome", "SpecError", "UsageError", "__version__",
          "arun_task", "judge_run", "load_spec", "run_task"]


def test_public_names_are_pinned():
    assert sorted(clawrec.__all__) == sorted(PUBLIC)
    for name in PUBLIC:
        assert getattr(clawrec, name) is not None


def test_run_task_runs_the_demo_task_end_to_end(tmp_path):
    from clawrec import RunDir, load_spec, run_task

    spec = load_spec(SPEC)
    outcome = run_task(spec, "replay", replay_from=REFERENCE, reference=REFERENCE, serve_sites=True,
                       headless=True, video=False, runs_dir=tmp_path)
    assert outcome.exit_code == 0, outcome.message
    assert outcome.status == "intercepted", outcome.stop_reason
    assert outcome.run_dir.parent.parent == tmp_path
    assert len(outcome.catches) == 1 and outcome.catches[0]["method"] == "POST"
    # the verdict came from judge_run, as `clawrec judge` writes it
    assert outcome.verdict is not None and outcome.verdict["verdict"] == "PASS"
    on_disk = json.loads((outcome.run_dir / "verdict.json").read_text())
    assert on_disk["verdict"] == "PASS" and on_disk["judge"] == "payload"
    run = RunDir(outcome.run_dir)
    assert run.status == "intercepted" and run.task_id == spec.id and run.spec_path == SPEC.resolve()
    assert len(run.interceptions.records) == 1


def test_api_errors_name_the_keyword_not_the_flag(tmp_path):
    from clawrec import UsageError, arun_task

    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x").write_text("x")
    with pytest.raises(UsageError) as err:
        asyncio.run(arun_task(SPEC, "replay", replay_from=REFERENCE, run_dir=tmp_path / "busy",
                              serve_sites=True, headless=True))
    assert str(err.value).startswith("run_dir ") and "--run-dir" not in str(err.value)
    assert err.value.cli_message().startswith("--run-dir ")


def test_every_keyword_is_checked_as_its_flag_and_named(tmp_path):
    """Bad keywords are refused before a browser starts (nothing is created), each message naming the keyword."""
    from clawrec import UsageError, arun_task, run_task

    (tmp_path / "file").write_text("x")
    ok = {"replay_from": REFERENCE, "serve_sites": True, "headless": True, "runs_dir": tmp_path / "runs"}
    bad = [({"time_limit": -1}, "time_limit=-1: must be a finite number of seconds > 0"),
           ({"time_limit": 0}, "time_limit=0: "), ({"time_limit": "10"}, "time_limit='10': "),
           ({"time_limit": float("inf")}, "time_limit=inf: "), ({"grace": -1}, "grace=-1: must be a finite number"),
           ({"headless": "yes"}, "headless='yes': must be True or False"),
           ({"runs_dir": tmp_path / "file" / "runs"}, f"runs_dir {tmp_path / 'file' / 'runs'}: cannot create it: "),
           ({"run_dir": tmp_path / "file" / "r"}, f"run_dir {tmp_path / 'file' / 'r'}: cannot create it: "),
           ({"replay_from": tmp_path / "nowhere"}, f"replay_from {tmp_path / 'nowhere'}: not a directory"),
           ({"replay_from": None}, "agent 'replay' needs replay_from ")]  # the agent's check, keyword-named
    for change, message in bad:
        with pytest.raises(UsageError) as err:
            asyncio.run(arun_task(SPEC, "replay", **{**ok, **change}))
        assert str(err.value).startswith(message) and "--" not in str(err.value), (change, str(err.value))
    assert not (tmp_path / "runs").exists()  # refused before anything was made

    async def in_a_loop():  # Jupyter: a loop is running; run_task must say what to write instead
        return run_task(SPEC, "replay", **ok)

    with pytest.raises(UsageError, match=r"await clawrec\.arun_task\(\.\.\.\)"):
        asyncio.run(in_a_loop())
