"""The committed fixture corpus is exactly what make_corpus.py writes (so it can be regenerated and extended)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from tests.evaluator.helpers import RUNS


def test_generator_reproduces_the_committed_corpus(tmp_path):
    spec = importlib.util.spec_from_file_location("make_corpus", RUNS / "make_corpus.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.main(out=tmp_path)
    made = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    committed = sorted(p.relative_to(RUNS) for p in RUNS.rglob("*") if p.is_file() and (
        p.relative_to(RUNS).parts[0] in ("travel", "contact") or p.relative_to(RUNS) == Path("labels.json")))
    assert made == committed
    for rel in made:
        if rel.suffix != ".jpg":  # JPEG bytes may vary with the Pillow version; the JSON must not
            assert (tmp_path / rel).read_bytes() == (RUNS / rel).read_bytes(), rel
