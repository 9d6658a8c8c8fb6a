"""The optional top-level `exact` key (payload fields the judge compares verbatim): parsed into `Spec.exact`, old
specs without it stay valid; bad values are covered by the malformed corpus (exact-not-list, exact-also-volatile)."""

from __future__ import annotations

from pathlib import Path

from taskspec.load import load_spec

ROOT = Path(__file__).resolve().parents[2]
BASE = "version: 1\nid: status\ninstruction: Post a status.\nstart_url: http://127.0.0.1:8801/\n"


def test_exact_paths_are_parsed(tmp_path):
    path = tmp_path / "status.yaml"
    path.write_text(BASE + "expect: {text: Hello}\nexact: [text, author.name]\nvolatile: [nonce]\n")
    spec = load_spec(path)
    assert spec.exact == ("text", "author.name") and spec.volatile == ("nonce",)


def test_specs_without_exact_still_load():
    specs = sorted((ROOT / "specs").rglob("*.yaml"))
    assert specs and all(load_spec(p).exact == () for p in specs)
