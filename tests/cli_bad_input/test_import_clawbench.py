"""`clawrec import-clawbench` on bad task files and outputs: `FILE:LINE: field: message` or one `clawrec:` line,
exit 2, nothing changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_bad_input.helpers import Case, both, check_bad_input, write


CASES = [
    Case("import-missing", ["import-clawbench", "nope", "out"], ["nope", "no such file"]),
    Case("import-not-json", ["import-clawbench", "t/task.json", "out"], ["t/task.json:1", "json"],
         setup=write("t/task.json", "{nope"), prefix="t/task.json"),
    Case("import-empty", ["import-clawbench", "t/task.json", "out"], ["t/task.json:1", "json"],
         setup=write("t/task.json", ""), prefix="t/task.json"),
    Case("import-non-utf8", ["import-clawbench", "t/task.json", "out"], ["t/task.json:1", "not UTF-8"],
         setup=write("t/task.json", b'{"a": "\xff"}'), prefix="t/task.json"),
    Case("import-not-a-mapping", ["import-clawbench", "t/task.json", "out"], ["t/task.json:1", "mapping"],
         setup=write("t/task.json", "[1, 2]"), prefix="t/task.json"),
    Case("import-out-under-a-file", ["import-clawbench", "t/task.json", "f/out"], ["OUT f/out", "is a file"],
         setup=both(write("t/task.json", "{}"), write("f", "x"))),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_line_and_changes_nothing(case: Case, root: Path):
    check_bad_input(case, root)
