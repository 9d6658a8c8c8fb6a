"""`clawrec diagnose` on damaged runs, references and specs: one line naming the file and line, exit 2, nothing
changed; wrong-typed records are tolerated."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_bad_input.helpers import (
    LAYERS, REF, RUN, TOLERATED_PARAMS, WRONG_TYPES, Case, check_bad_input, check_tolerated, folder, insert_line,
    manifest_with, remove,
)


CASES = [
    Case("diagnose-manifest-spec-wrong-type", ["diagnose", RUN], [RUN, "no reference run"],
         setup=manifest_with(task__spec=["a"])),
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
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_line_and_changes_nothing(case: Case, root: Path):
    check_bad_input(case, root)


TOLERATED = [
    ("diagnose-wrong-types", ["diagnose", RUN], "actions.jsonl", WRONG_TYPES, 1, None),
]


@pytest.mark.parametrize(TOLERATED_PARAMS, TOLERATED, ids=[t[0] for t in TOLERATED])
def test_tolerated_damage_is_noted_and_recordings_stay(name, args, layer, line, at, note, root: Path):
    check_tolerated(args, layer, line, at, note, root)
