"""`clawrec validate` on bad spec files: every problem is `FILE:LINE: field: message`, exit 2, nothing changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_bad_input.helpers import S_SPEC, Case, check_bad_input, folder, spec_plus, write


CASES = [
    # validate: every problem is `FILE:LINE: field: message`
    Case("validate-missing", ["validate", "nope.yaml"], ["nope.yaml", "path", "no such file"], prefix="nope.yaml"),
    Case("validate-empty", ["validate", "e.yaml"], ["e.yaml:1", "empty file"], setup=write("e.yaml", ""),
         prefix="e.yaml"),
    Case("validate-not-a-mapping", ["validate", "l.yaml"], ["l.yaml:1", "spec", "mapping"],
         setup=write("l.yaml", "- a\n- b\n"), prefix="l.yaml"),
    Case("validate-non-utf8", ["validate", "n.yaml"], ["n.yaml:3", "not UTF-8"],
         setup=write("n.yaml", b"version: 1\nid: n\ninstruction: \xff\xfe\n"), prefix="n.yaml"),
    Case("validate-folder-named-like-a-spec", ["validate", "x.yaml"], ["x.yaml", "no spec files"],
         setup=folder("x.yaml/sub"), prefix="x.yaml"),
    Case("validate-unknown-key", ["validate", S_SPEC], [f"{S_SPEC}:41", "bogus", "unknown key"],
         setup=spec_plus("bogus: 1"), prefix=S_SPEC),
    Case("validate-wrong-type", ["validate", S_SPEC], [f"{S_SPEC}:41", "exact", "list"],
         setup=spec_plus("exact: 5"), prefix=S_SPEC),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_line_and_changes_nothing(case: Case, root: Path):
    check_bad_input(case, root)
