"""`clawrec intercept` with a bad spec, browser or output: one line, exit 2 for bad input and 1 for a browser that
cannot be attached, nothing changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_bad_input.helpers import RUN, SITES, SPEC, Case, check_bad_input, write


CASES = [
    Case("intercept-missing-spec", ["intercept", "nope.yaml", "--browser", "http://127.0.0.1:9", "--out", "o"],
         ["nope.yaml", "path"]),
    Case("intercept-placeholders-without-sites", ["intercept", SPEC, "--browser", "http://127.0.0.1:9", "--out", "o"],
         [SPEC, "CLAWREC_SITES"]),
    Case("intercept-bad-browser-url", ["intercept", SPEC, "--browser", "ftp://x", "--out", "o"],
         ["--browser", "ftp://x"], env=SITES),
    Case("intercept-out-under-a-file", ["intercept", SPEC, "--browser", "http://127.0.0.1:9", "--out", "f/o"],
         ["--out f/o", "is a file"], setup=write("f", "x"), env=SITES),
    Case("intercept-out-is-a-recorded-run", ["intercept", SPEC, "--browser", "http://127.0.0.1:9", "--out", RUN],
         [f"--out {RUN}", "already holds", "interceptions.jsonl"], env=SITES),
    Case("intercept-unreachable-browser", ["intercept", SPEC, "--browser", "http://127.0.0.1:{port}", "--out", "o"],
         ["cannot attach to the browser at http://127.0.0.1:"], code=1, env=SITES),
    Case("intercept-not-a-browser", ["intercept", SPEC, "--browser", "{http_server}", "--out", "o"],
         ["cannot attach to the browser at http://127.0.0.1:"], code=1, env=SITES),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_line_and_changes_nothing(case: Case, root: Path, http_server: str):
    check_bad_input(case, root, http_server)
