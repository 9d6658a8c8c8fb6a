"""`clawrec view` on damaged runs and bad outputs: one line, exit 2, nothing changed; wrong-typed records and an
unreadable verdict or diagnosis still render."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_bad_input.helpers import (
    RUN, TOLERATED_PARAMS, WRONG_TYPES, Case, check_bad_input, check_tolerated, clawrec, folder, insert_line, tree,
    write,
)


CASES = [
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
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_line_and_changes_nothing(case: Case, root: Path):
    check_bad_input(case, root)


TOLERATED = [
    ("view-wrong-types", ["view", RUN], "agent.jsonl", WRONG_TYPES, 1, None),
    ("view-wrong-types-http", ["view", RUN], "http.jsonl", WRONG_TYPES, 1, None),
]


@pytest.mark.parametrize(TOLERATED_PARAMS, TOLERATED, ids=[t[0] for t in TOLERATED])
def test_tolerated_damage_is_noted_and_recordings_stay(name, args, layer, line, at, note, root: Path):
    check_tolerated(args, layer, line, at, note, root)


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
