"""report.html says why a verdict is missing: a verdict.json that cannot be read is named in the Verdict section
and in Notes (not shown as "not judged"), while a run without one is "not judged"."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import pytest

from evaluator.report import write_report

RUN = Path(__file__).resolve().parents[1] / "fixtures" / "runs" / "real" / "travel" / "r01-correct"


def _sections(page: str) -> dict[str, str]:
    """h2 title -> the section's text (tags stripped, entities decoded)."""
    out = {}
    for body in re.findall(r"<section[^>]*>(.*?)</section>", page, flags=re.S):
        title = re.search(r"<h2>(.*?)</h2>", body, flags=re.S)
        key = re.sub(r"<[^>]+>", "", title.group(1)).strip() if title else ""
        out[key] = html.unescape(re.sub(r"<[^>]+>", " ", body))
    return out


@pytest.fixture
def run(tmp_path: Path) -> Path:
    dst = tmp_path / "run"
    shutil.copytree(RUN, dst, ignore=shutil.ignore_patterns("verdict.json", "diagnosis.json", "report.html",
                                                             "*.mp4"))
    return dst


@pytest.mark.parametrize("content,why", [(b"\xff not json", "unreadable ("),
                                         (b'["PASS"]', "unreadable (not a JSON object)")],
                         ids=["corrupt", "not-an-object"])
def test_unreadable_verdict_is_named_not_shown_as_not_judged(run: Path, content: bytes, why: str):
    (run / "verdict.json").write_bytes(content)
    sections = _sections(write_report(run).read_text(encoding="utf-8"))
    assert "verdict.json is unreadable" in sections["Verdict"], sections["Verdict"]
    assert "not judged" not in sections["Verdict"]
    assert f"verdict.json: {why}" in sections.get("Notes", ""), sections.keys()


def test_run_without_verdict_is_not_judged_and_has_no_verdict_note(run: Path):
    sections = _sections(write_report(run).read_text(encoding="utf-8"))
    assert "not judged (no verdict.json)" in sections["Verdict"]
    assert "verdict.json" not in sections.get("Notes", "")
