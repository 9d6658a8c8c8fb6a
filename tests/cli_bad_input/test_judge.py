"""`clawrec judge` on damaged runs and bad flags: one line naming the file and field, exit 2 (1 for an unreachable
API), no recording changed; damage a crashed run may carry is noted and tolerated; a batch judges the good runs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.cli_bad_input.helpers import (
    LAYERS, REAL, REF, RUN, SPEC, TOLERATED_PARAMS, WRONG_TYPES, Case, both, check_bad_input, check_tolerated,
    clawrec, folder, manifest_with, recorded, remove, write,
)


CASES = [
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
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_line_and_changes_nothing(case: Case, root: Path):
    check_bad_input(case, root)


TOLERATED = [
    ("judge-cut-last-line", ["judge", RUN], "actions.jsonl", b'{"t": 99.5, "type": "cli', -1,
     "actions.jsonl: line {n} is corrupt (skipped)"),
    ("judge-wrong-types", ["judge", RUN], "agent.jsonl", WRONG_TYPES, 1,
     "agent.jsonl: line 2: t, role: wrong type (ignored)"),
]


@pytest.mark.parametrize(TOLERATED_PARAMS, TOLERATED, ids=[t[0] for t in TOLERATED])
def test_tolerated_damage_is_noted_and_recordings_stay(name, args, layer, line, at, note, root: Path):
    check_tolerated(args, layer, line, at, note, root)


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
