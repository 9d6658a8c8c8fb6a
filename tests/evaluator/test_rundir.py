"""RunDir: typed layers, tolerance of crashed runs, a clear error for what is not a run."""

from __future__ import annotations

import json
import shutil

import pytest

from evaluator.errors import RunDirError
from rundir.reader import Action, Interception, RunDir
from tests.evaluator.helpers import RUNS, copy_run


def test_typed_view_of_every_layer():
    rd = RunDir(RUNS / "travel/a01-correct")
    assert rd.task_id == "travel-flight-oneway" and rd.status == "intercepted" and rd.agent_name == "fixture"
    assert rd.spec_path == (RUNS / "specs/travel-flight-oneway.yaml").resolve()
    c = rd.interceptions.records[0]
    assert isinstance(c, Interception) and c.line == 1 and c.body["origin"] == "JFK"
    assert json.loads(c.raw_body)["origin"] == "JFK" and c.action == "blocked"
    assert all(isinstance(a, Action) for a in rd.actions) and [a.seq for a in rd.actions][:3] == [1, 2, 3]
    assert rd.http.records[-1].intercepted is True
    assert rd.agent.records[0].role == "system"
    shot = rd.screenshots.records[0]
    assert rd.screenshot_file(shot).read_bytes()[:2] == b"\xff\xd8"  # a JPEG
    assert rd.problems == []


def test_not_a_run_is_a_clear_error(tmp_path):
    with pytest.raises(RunDirError, match="no such directory"):
        RunDir(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(RunDirError, match="no manifest.json and no layer file"):
        RunDir(tmp_path / "empty")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad/manifest.json").write_text("{not json")
    with pytest.raises(RunDirError, match="manifest unreadable"):
        RunDir(tmp_path / "bad")


def test_crashed_run_without_manifest_and_with_cut_lines(tmp_path):
    run = copy_run("travel/a10-crashed-corrupt", tmp_path)
    (run / "manifest.json").unlink()
    rd = RunDir(run).load_all()
    assert rd.task_id is None and rd.status is None
    assert "manifest.json: missing (crashed run?); layers read without it" in rd.problems
    assert "interceptions.jsonl: line 2 is corrupt (skipped)" in rd.problems
    assert len(rd.interceptions) == 1 and rd.interceptions.bad_lines == [2]


def test_flat_manifest_keys_are_understood(tmp_path):
    run = copy_run("travel/a01-correct", tmp_path)
    m = json.loads((run / "manifest.json").read_text())
    task = m.pop("task")
    m.update(task_id=task["id"], spec_sha256=task["spec_sha256"], spec_path=str(RUNS / "specs/x.yaml"),
             agent={"name": "claude"})
    (run / "manifest.json").write_text(json.dumps(m))
    rd = RunDir(run)
    assert (rd.task_id, rd.spec_sha256, rd.agent_name) == (task["id"], task["spec_sha256"], "claude")
    assert rd.spec_path == RUNS / "specs/x.yaml"


def test_evidence_pointers_are_checked():
    rd = RunDir(RUNS / "travel/a01-correct")
    assert rd.check_evidence("actions.jsonl", line=3) is None
    assert rd.check_evidence("actions.jsonl", seq=4) is None
    assert rd.check_evidence("screenshots/000001.jpg") is None
    assert "no record at line 99" in rd.check_evidence("actions.jsonl", line=99)
    assert "no record with seq 500" in rd.check_evidence("actions.jsonl", seq=500)
    assert "not a layer file" in rd.check_evidence("secrets.txt")
    assert "does not exist" in rd.check_evidence("screenshots/000099.jpg")
    assert "does not exist in this run" in RunDir(RUNS / "travel/a09-no-submission").check_evidence(
        "interceptions.jsonl", line=1)


def test_screenshot_paths_never_leave_the_run(tmp_path):
    run = copy_run("travel/a01-correct", tmp_path)
    shutil.copy(run / "screenshots/000001.jpg", tmp_path / "outside.jpg")
    (run / "screenshots/screenshots.jsonl").write_text(json.dumps(
        {"t": 1, "seq": 1, "action_seq": 1, "path": "../../outside.jpg"}) + "\n")
    rd = RunDir(run)
    assert rd.screenshot_file(rd.screenshots.records[0]) is None
