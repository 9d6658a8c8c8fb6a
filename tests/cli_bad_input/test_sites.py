"""`clawrec sites serve` with bad flags: one line `clawrec: …` naming the flag, exit 2, nothing changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_bad_input.helpers import RUN, Case, check_bad_input, folder, write


CASES = [
    Case("sites-bad-frozen-time", ["sites", "serve", "--frozen-time", "yesterday"], ["--frozen-time", "yesterday"]),
    Case("sites-log-under-a-file", ["sites", "serve", "--log", "f/log.jsonl"], ["--log f/log.jsonl", "is a file"],
         setup=write("f", "x")),
    Case("sites-log-is-a-folder", ["sites", "serve", "--log", "d"], ["--log", "'d' is a directory"],
         setup=folder("d")),
    Case("sites-log-is-a-recorded-layer", ["sites", "serve", "--log", f"{RUN}/http.jsonl"],
         [f"--log {RUN}/http.jsonl", "recorded layer"]),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_line_and_changes_nothing(case: Case, root: Path):
    check_bad_input(case, root)
