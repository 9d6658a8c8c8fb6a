"""SOPs and consistency on real runs: a bench of the demo travel task × the replay agent with and without the
reference's SOP (`--sop none --sop auto`) × 2 trials writes both rows and the consistency column beside pass^k; the
replays' SOP is the person's; and on labelled pairs (two replays of the reference, a copy with extra scrolls and a
click before typing = consistent; another flight, a skipped filter, the null and the random agent = inconsistent)
the score separates them (consistent >= 0.85 > 0.7 >= inconsistent) and consistency-agreement is 100 % accurate.
The null and random runs are recorded while the bench runs."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from clawrec.cli import main
from evaluator.consistency import pair
from evaluator.sop import write_sop
from rundir.reader import RunDir
from tests.bench.helpers import DEMO, FAST, REFERENCE, REPO, bench
from tests.evaluator.derived_runs import derive, scroll_and_click_before_typing, skip_nonstop_filter

SPEC = DEMO / "travel-flight-oneway.yaml"
RECORDED = REPO / "tests" / "fixtures" / "runs" / "real" / "travel"
BASELINE_ENV = {"CLAWREC_NULL_IDLE_S": "0.5", "CLAWREC_RANDOM_STEPS": "6", "CLAWREC_RANDOM_SEED": "26"}


@pytest.fixture(scope="module")
def sop_bench(tmp_path_factory):
    root = tmp_path_factory.mktemp("sop")
    env = {**os.environ, **BASELINE_ENV}
    baselines = {name: subprocess.Popen([sys.executable, "-m", "clawrec.cli", "run", str(SPEC), "--agent", name,
                                         "--run-dir", str(root / name), "--headless", "--no-video", "--serve-sites",
                                         "--no-judge"], cwd=REPO, env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
                 for name in ("null", "random")}
    out = root / "bench"
    proc = bench(str(DEMO), "--ids", "travel-flight-oneway", "--agent", "replay", "--from", str(REFERENCE),
                 "--sop", "none", "--sop", "auto", "--trials", "2", "-j", "2", "--out", str(out), *FAST)
    for name, p in baselines.items():
        _out, err = p.communicate(timeout=300)
        assert p.returncode == 0, (name, err[-2000:])
    assert proc.returncode == 0, proc.stderr[-3000:]
    return root, out


def _trial(out: Path, label: str, k: int) -> Path:
    return out / "runs" / "travel-flight-oneway" / label / f"trial-{k}"


def test_bench_with_and_without_the_sop(sop_bench):
    _root, out = sop_bench
    summary = json.loads((out / "summary.json").read_text())
    rows = {r["label"]: r for r in summary["rows"]}
    assert set(rows) == {"replay", "replay+sop"}
    for label, r in rows.items():
        assert r["counts"]["pass"] == 2 and r["pass_k"]["pass_hat_k"] == 1.0
        assert r["consistency"]["tasks"] == 1 and r["consistency"]["mean_pairwise"] == 1.0
    md = (out / "summary.md").read_text()
    assert "| pass@k | pass^k | consistency |" in md and "| replay+sop | 2 | 2 | 0 | 100.0% (k=2) | 100.0% | 1.00 |" in md
    table = {r["label"]: r for r in csv.DictReader((out / "summary.csv").read_text().splitlines())}
    assert float(table["replay+sop"]["consistency"]) == 1.0
    given = json.loads((_trial(out, "replay_sop", 1) / "task.json").read_text())
    plain = json.loads((_trial(out, "replay", 1) / "task.json").read_text())
    assert "sop" not in plain and "Standard operating procedure" not in plain["instruction"]
    assert given["sop"]["source"] == f"auto: {REFERENCE}" and given["instruction"].startswith(plain["instruction"])
    sites = json.loads((_trial(out, "replay_sop", 1) / "manifest.json").read_text())["sites"]
    assert f'1. Open {sites["travel"]}\n' in given["instruction"]
    assert '13. Type "Alex" into the textbox "First name"' in given["instruction"]
    assert json.loads((_trial(out, "replay_sop", 1) / "manifest.json").read_text())["flags"]["sop"] == given["sop"]


def test_the_replay_and_the_person_give_the_same_sop(sop_bench):
    _root, out = sop_bench
    person = [s.text for s in write_sop(RunDir(REFERENCE)).steps]
    for label in ("replay", "replay_sop"):
        replay = RunDir(_trial(out, label, 1))
        assert replay.agent_name == "replay"
        assert [s.text for s in write_sop(replay).steps] == person


def test_labelled_pairs_are_separated(sop_bench, capsys):
    root, out = sop_bench
    one, two = _trial(out, "replay", 1), _trial(out, "replay", 2)
    noisy = derive(one, root / "pairs" / "noisy", scroll_and_click_before_typing)
    skipped = derive(two, root / "pairs" / "skipped", skip_nonstop_filter)
    pairs = [(one, two, "consistent"), (one, noisy, "consistent"), (REFERENCE, two, "consistent"),
             (one, RECORDED / "r07-wrong-date", "inconsistent"), (one, skipped, "inconsistent"),
             (one, root / "null", "inconsistent"), (one, root / "random", "inconsistent"),
             (REFERENCE, root / "random", "inconsistent")]
    for a, b, label in pairs:
        s = pair(RunDir(a), RunDir(b)).score
        assert (s >= 0.85) if label == "consistent" else (s <= 0.7), (a, b, label, s)
    labels = root / "labels.csv"
    labels.write_text("run_a,run_b,label\n" + "".join(f"{a},{b},{lab}\n" for a, b, lab in pairs))
    assert main(["consistency-agreement", str(labels), str(root), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["pairs"] == 8 and data["best"]["accuracy"] == 1.0 and data["best"]["f1"] == 1.0
    assert 0.7 < data["best"]["threshold"] < 1.0 and data["default"]["accuracy"] == 1.0
    assert data["mean_score"]["consistent"] >= 0.85 and data["mean_score"]["inconsistent"] <= 0.7
