"""The spec's `exact: [paths]`: those payload fields are judged verbatim (case and whitespace count).

Real recorded runs of the social status task: a status text that differs from the wanted one only in case (or in
doubled spaces) passes the normalized comparison, and fails once the spec names the field in `exact`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from clawrec.cli import main
from evaluator.normalize import same
from evaluator.payload_judge import judge_payload
from rundir.reader import RunDir
from taskspec.load import load_spec
from tests.evaluator.helpers import RUNS

REAL = RUNS / "real" / "social-status"
SPEC = RUNS / "real" / "specs" / "social-status-update.yaml"
TEXT = "Ran my first trail half marathon today: 2:04 at Barton Creek!"


def write_spec(tmp_path: Path, **changes) -> Path:
    """The real social-status spec in tmp_path/specs (reference: the copied reference run), with `changes`."""
    data = yaml.safe_load(SPEC.read_text())
    data.update(changes, reference="../social-status/reference")
    data = {k: v for k, v in data.items() if v is not None}
    path = tmp_path / "specs" / "social-status-update.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    return path


def copy_runs(tmp_path: Path, agent: str, text: str | None = None) -> Path:
    """Copies of the reference and an agent run; `text` replaces the agent's caught status text."""
    shutil.copytree(REAL / "reference", tmp_path / "social-status" / "reference")
    run = shutil.copytree(REAL / agent, tmp_path / "social-status" / agent)
    if text is not None:
        catches = (run / "interceptions.jsonl").read_text().splitlines()
        first = json.loads(catches[0])
        first["body"]["text"] = text
        first["raw"] = json.dumps(first["body"])
        (run / "interceptions.jsonl").write_text("\n".join([json.dumps(first), *catches[1:]]) + "\n")
    return run


def judge(run: Path, spec: Path):
    return judge_payload(RunDir(run), load_spec(spec), RunDir(run.parent / "reference"))


CASE_ONLY = TEXT.replace("trail half marathon", "Trail Half Marathon")


@pytest.mark.parametrize("agent, text", [("p01-correct", CASE_ONLY), ("p04-double-space", None)],
                         ids=["case-only", "double-space"])
def test_variant_passes_normalized_and_fails_exact(agent, text, tmp_path):
    run = copy_runs(tmp_path, agent, text)
    caught = json.loads((run / "interceptions.jsonl").read_text().splitlines()[0])["body"]["text"]
    assert caught != TEXT and " ".join(caught.split()).casefold() == TEXT.casefold()  # only case / whitespace differ

    loose = judge(run, write_spec(tmp_path))
    assert loose.verdict == "PASS", loose.justification

    strict = judge(run, write_spec(tmp_path, exact=["text"]))
    assert strict.verdict == "FAIL"
    failed = [c for c in strict.conditions if not c.met]
    assert [c.condition for c in failed] == [f"Field text equals {json.dumps(TEXT)} exactly"]
    assert "case and whitespace count" in failed[0].detail
    assert {c.condition for c in strict.conditions if c.met} == {c.condition for c in loose.conditions} - {
        f"Field text equals {json.dumps(TEXT)}"}


def test_exact_run_that_is_right_still_passes(tmp_path):
    run = copy_runs(tmp_path, "p01-correct")
    verdict = judge(run, write_spec(tmp_path, exact=["text", "audience"]))
    assert verdict.verdict == "PASS", verdict.justification
    assert any(c.condition.endswith("exactly") and c.met for c in verdict.conditions)


def test_exact_field_outside_expect_is_compared_with_the_reference_even_as_free_text(tmp_path):
    """Without `expect`, a long status text is free text and skipped; `exact` makes the judge compare it."""
    run = copy_runs(tmp_path, "p01-correct", CASE_ONLY)
    loose = judge(run, write_spec(tmp_path, expect={"audience": "friends"}))
    assert loose.verdict == "PASS" and any(s["field"] == "text" for s in loose.skipped_fields)
    strict = judge(run, write_spec(tmp_path, expect={"audience": "friends"}, exact=["text"]))
    assert strict.verdict == "FAIL"
    assert [c.condition for c in strict.conditions if not c.met] == ["Field text matches the reference exactly"]


def test_judge_cli_reads_exact_from_the_spec_file(tmp_path, capsys):
    run = copy_runs(tmp_path, "p01-correct", CASE_ONLY)
    ref = run.parent / "reference"
    for exact, word in ((None, "PASS"), (["text"], "FAIL")):
        spec = write_spec(tmp_path, exact=exact)
        assert main(["judge", str(run), "--reference", str(ref), "--spec", str(spec)]) == 0
        out = capsys.readouterr().out
        assert word in out, out
        assert json.loads((run / "verdict.json").read_text())["verdict"] == word


def test_same_exact_folds_nothing_but_the_type():
    assert same("Friends", "friends")[0] and not same("Friends", "friends", exact=True)[0]
    assert not same("a  b", "a b", exact=True)[0] and not same(" a", "a", exact=True)[0]
    assert same(125000, "125000", exact=True)[0] and same(True, "true", exact=True)[0]
    assert not same("2026-12-31", "Dec 31, 2026", exact=True)[0] and same("2026-12-31", "Dec 31, 2026")[0]
    assert same({"a": ["X"]}, {"a": ["X"]}, exact=True)[0] and not same({"a": ["X"]}, {"a": ["x"]}, exact=True)[0]
