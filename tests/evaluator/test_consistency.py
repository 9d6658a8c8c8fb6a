"""`clawrec consistency` and `consistency-agreement` on recorded runs of the travel task (no browser): runs of the
same path score 1 whatever their timing, scrolls, clicks into fields or value formatting; another flight, a
skipped filter or a stop before booking fall far below. (tests/pipeline/test_sop_bench.py adds real replays and the
null and random agents.)"""

from __future__ import annotations

import json
from pathlib import Path

from clawrec.cli import main
from evaluator.consistency import pair
from rundir.reader import RunDir
from tests.evaluator.derived_runs import derive, scroll_and_click_before_typing, skip_nonstop_filter

REPO = Path(__file__).resolve().parents[2]
REFERENCE = REPO / "runs" / "reference" / "travel-flight-oneway"
REAL = REPO / "tests" / "fixtures" / "runs" / "real" / "travel"


def score(a: Path, b: Path) -> float:
    return pair(RunDir(a), RunDir(b)).score


def test_scores_of_recorded_and_derived_runs(tmp_path):
    noisy = derive(REAL / "r01-correct", tmp_path / "noisy", scroll_and_click_before_typing)
    skipped = derive(REAL / "r01-correct", tmp_path / "skipped", skip_nonstop_filter)
    kinds = [json.loads(ln)["type"] for ln in (noisy / "actions.jsonl").read_text().splitlines()]
    assert kinds.count("scroll") == 4 and kinds.count("click") == 15
    # the same path: another recording, other timing, a noisy copy, other value formats (case, phone format)
    for other in (REAL / "reference", REAL / "r01-correct", noisy, REAL / "r02-case-space", REAL / "r03-phone-format"):
        assert score(REFERENCE, other) == 1.0, other
    assert score(noisy, REAL / "reference") == 1.0
    p = pair(RunDir(REFERENCE), RunDir(REAL / "r07-wrong-date"))  # another day: another flight
    assert p.score <= 0.7 and len(p.divergences) == 2 and any("NW670" in d for d in p.divergences)
    assert any(d.startswith("flight_id:") for d in p.payload_differences)
    p = pair(RunDir(REFERENCE), RunDir(skipped))  # the same booking sent, without the filter
    assert p.score <= 0.7 and p.outcome == 1.0 and len(p.divergences) == 1
    assert sorted(p.divergences[0].split(" | ")) == ["(nothing)", 'fill checkbox "Nonstop only" = "on"']
    for other in (REAL / "v01-dough", REAL / "r09-gives-up", REAL / "v02-claims-done", REAL / "r08-business"):
        assert score(REFERENCE, other) <= 0.7, other
    assert score(REFERENCE, REAL / "r07-wrong-date") == score(REAL / "r07-wrong-date", REFERENCE)  # symmetric


def test_cli_report_and_json(capsys):
    runs = [str(REAL / "r01-correct"), str(REAL / "r07-wrong-date"), str(REAL / "r02-case-space")]
    assert main(["consistency", *runs, "--reference", str(REFERENCE), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [round(p["score"], 3) for p in data["vs_reference"]] == [1.0, 0.349, 1.0]
    assert len(data["pairs"]) == 3 and round(data["mean_pairwise"], 3) == round((1 + 0.349 + 0.349) / 3, 3)
    assert main(["consistency", *runs]) == 0
    out = capsys.readouterr().out
    assert "mean pairwise consistency: 0.566 (3 runs)" in out and "NW670" in out
    assert main(["consistency", runs[0]]) == 2
    assert capsys.readouterr().err == "clawrec: give two or more runs, or --reference REF\n"


def test_agreement_with_labels(tmp_path, capsys):
    root = tmp_path / "pairs"
    derive(REAL / "r01-correct", root / "noisy", scroll_and_click_before_typing)
    derive(REAL / "r01-correct", root / "skipped", skip_nonstop_filter)
    rows = [(REFERENCE, REAL / "reference", "consistent"), (REFERENCE, root / "noisy", "consistent"),
            (REFERENCE, REAL / "r03-phone-format", "consistent"), (REFERENCE, REAL / "r07-wrong-date", "inconsistent"),
            (REFERENCE, root / "skipped", "inconsistent"), (REFERENCE, REAL / "r09-gives-up", "inconsistent")]
    labels = tmp_path / "labels.csv"
    labels.write_text("run_a,run_b,label,why\n" + "".join(f"{a},{b},{lab},x\n" for a, b, lab in rows))
    assert main(["consistency-agreement", str(labels), str(root), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["best"]["accuracy"] == 1.0 and data["best"]["f1"] == 1.0 and data["default"]["accuracy"] == 1.0
    assert 0.35 < data["best"]["threshold"] < 1.0 and data["mean_score"]["consistent"] == 1.0
    assert main(["consistency-agreement", str(labels), str(root)]) == 0
    assert "best threshold" in capsys.readouterr().out
    labels.write_text("run_a,run_b,label\nnoisy,skipped,same\n")
    assert main(["consistency-agreement", str(labels), str(root)]) == 2
    assert capsys.readouterr().err == f"clawrec: {labels}:2: label: 'same' is not consistent or inconsistent\n"
    labels.write_text("a,b,label\n")
    assert main(["consistency-agreement", str(labels), str(root)]) == 2
    assert "header: needs the columns run_a, run_b and label" in capsys.readouterr().err
