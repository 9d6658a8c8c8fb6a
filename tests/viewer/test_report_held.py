"""report.html on a request hold mode blocked (interceptions.jsonl `action: held_blocked`, `rule: null`, `held.by`):
the step says who stopped it (the person, or the hold's timeout), never "rule None"; a rule's catch still names its
rule."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from clawrec.cli import main

FIX = Path(__file__).resolve().parents[1] / "diagnose" / "fixtures"


def _report_of(tmp_path: Path, capsys, held_by: str | None) -> str:
    runs = tmp_path / "runs"
    shutil.copytree(FIX, runs)
    run = runs / "agent-detour"
    log = run / "interceptions.jsonl"
    rec = json.loads(log.read_text().splitlines()[0])
    if held_by is not None:  # as hold mode writes it (interceptor/hold.py, wsguard.HELD_BLOCKED)
        rec.update(rule=None, rule_index=None, action="held_blocked",
                   held={"id": 1, "held_t": rec["t"] - 1.5, "decided_t": rec["t"], "by": held_by})
    log.write_text(json.dumps(rec) + "\n")
    assert main(["view", str(run)]) == 0, capsys.readouterr().err
    return (run / "report.html").read_text()


@pytest.mark.parametrize("by, said", [("page", "held by the person (hold mode), blocked on the task page"),
                                      ("terminal", "held by the person (hold mode), blocked in the terminal"),
                                      ("timeout", "held (hold mode), blocked: no answer before the timeout")])
def test_a_held_block_says_who_stopped_it(tmp_path, capsys, by, said):
    page = _report_of(tmp_path, capsys, by)
    assert "rule None" not in page and "None →" not in page
    row = re.search(r"<tr class='l-http caught req'[^>]*>.*?</tr>", page, re.S)[0]
    assert "<span class='badge l-caught'>held</span>" in row and said in row, row
    data = json.loads(re.search(r"<script type=application/json id=report-data>(.*?)</script>", page, re.S)[1])
    (panel,) = _catches(data)  # what the request panel shows on click
    assert panel["status"] == said and panel["rule"] is None


def _catches(value: object) -> list[dict]:
    if isinstance(value, dict):
        return [value] if value.get("kind") == "catch" else [c for v in value.values() for c in _catches(v)]
    return [c for v in value for c in _catches(v)] if isinstance(value, list) else []


def test_a_rule_catch_still_names_its_rule(tmp_path, capsys):
    page = _report_of(tmp_path, capsys, None)
    row = re.search(r"<tr class='l-http caught req'[^>]*>.*?</tr>", page, re.S)[0]
    assert "<span class='badge l-caught'>caught</span>" in row and "rule intercept[0] → blocked" in row, row
