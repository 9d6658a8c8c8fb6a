"""Test helpers: the fixture corpus and a Spec built straight from a fixture YAML (independent of spec_check)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import yaml

from taskspec.model import Rule, Spec

RUNS = Path(__file__).resolve().parents[1] / "fixtures" / "runs"


def labels() -> list[dict[str, Any]]:
    """The labelled corpus: hand-built runs (labels.json) + runs recorded by the real pipeline (real/labels.json)."""
    return json.loads((RUNS / "labels.json").read_text()) + json.loads((RUNS / "real" / "labels.json").read_text())


def spec_from_yaml(path: str | Path) -> Spec:
    """A Spec from a fixture YAML, without validation (the fixtures are valid; spec_check has its own tests)."""
    path = Path(path).resolve()
    raw = path.read_bytes()
    d = yaml.safe_load(raw)
    rules = []
    for i, r in enumerate(d.get("intercept") or []):
        m = r.get("method") or ()
        rules.append(Rule(index=i, url=r.get("url"), url_regex=r.get("url_regex"),
                          methods=tuple([m] if isinstance(m, str) else m), fields=tuple(r.get("fields") or ()),
                          equals=dict(r.get("equals") or {})))
    ref = d.get("reference")
    return Spec(path=path, sha256=hashlib.sha256(raw).hexdigest(), id=d["id"], instruction=d["instruction"],
                start_url=d["start_url"], category=d.get("category", "daily"), user=dict(d.get("user") or {}),
                intercept=tuple(rules), verify=tuple(d.get("verify") or ()), expect=dict(d.get("expect") or {}),
                volatile=tuple(d.get("volatile") or ()), exact=tuple(d.get("exact") or ()), reference=(path.parent / ref).resolve() if ref else None,
                raw=d)


def copy_run(rel: str, dest: Path) -> Path:
    """A writable copy of a fixture run (tests write verdict.json; the fixtures stay untouched)."""
    out = dest / rel.replace("/", "-")
    shutil.copytree(RUNS / rel, out)
    return out
