"""The ClawBench corpus imported once per session (the import + differential tests share it; no browser)."""

from __future__ import annotations

from pathlib import Path

import pytest

from clawrec.cli import main

DATA = Path("/work/shared/data/clawbench")
CORPUS = DATA / "test-cases"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "clawbench"


def corpus_path() -> Path:
    """The ClawBench test-cases folder ($CLAWREC_CLAWBENCH_DATA overrides the shared copy); missing = a failure."""
    import os

    root = Path(os.environ.get("CLAWREC_CLAWBENCH_DATA", DATA))
    cases = root / "test-cases"
    assert cases.is_dir(), f"ClawBench corpus not found at {cases} (set CLAWREC_CLAWBENCH_DATA)"
    return cases


@pytest.fixture(scope="session")
def imported_corpus(tmp_path_factory) -> tuple[Path, Path, str, str]:
    """(test-cases folder, OUT, stdout, stderr) of `clawrec import-clawbench test-cases OUT`."""
    import contextlib
    import io

    src = corpus_path()
    out = tmp_path_factory.mktemp("clawbench") / "out"
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(["import-clawbench", str(src), str(out)])
    assert code == 0, stderr.getvalue()
    return src, out, stdout.getvalue(), stderr.getvalue()


@pytest.fixture(scope="session")
def corpus_specs(imported_corpus) -> list:
    """The imported specs, loaded (and so checked) once for every test that reads them."""
    from taskspec.load import load_specs

    return load_specs([imported_corpus[1]])
