"""`clawrec annotate` on damaged runs and bad flags: one line naming the file, line or flag, exit 2, nothing changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_bad_input.helpers import RUN, Case, check_bad_input, insert_line, remove, write


CASES = [
    Case("annotate-missing", ["annotate", "nope"], ["nope: not a run directory"]),
    Case("annotate-no-http-layer", ["annotate", RUN], [RUN, "http.jsonl"], setup=remove(f"{RUN}/http.jsonl")),
    Case("annotate-corrupt-line", ["annotate", RUN, "--list"], [f"{RUN}/http.jsonl:3", "corrupt"],
         setup=insert_line(f"{RUN}/http.jsonl", b'{"url": "http://x", "method": "PO\n', 2)),
    Case("annotate-manifest-non-utf8", ["annotate", RUN], [f"{RUN}/manifest.json", "unreadable"],
         setup=write(f"{RUN}/manifest.json", b"\xff")),
    Case("annotate-pick-zero", ["annotate", RUN, "--pick", "0", "--out", "o/x.yaml"], ["--pick", "0"]),
    Case("annotate-pick-out-of-range", ["annotate", RUN, "--pick", "99", "--out", "o/x.yaml"], ["--pick 99"]),
    Case("annotate-bad-category", ["annotate", RUN, "--category", "nope"], ["--category", "nope"]),
    Case("annotate-out-exists", ["annotate", RUN, "--out", "x.yaml"], ["x.yaml", "already exists"],
         setup=write("x.yaml", "keep me\n")),
    Case("annotate-out-under-a-file", ["annotate", RUN, "--out", "f/x.yaml"], ["--out f/x.yaml", "is a file"],
         setup=write("f", "x")),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_line_and_changes_nothing(case: Case, root: Path):
    check_bad_input(case, root)
