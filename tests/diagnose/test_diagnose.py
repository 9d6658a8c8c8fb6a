"""`clawrec diagnose`: the first divergence between an agent run and its reference, on hand-built runs with a known
detour and on the real recorded travel corpus (runs made by `clawrec run` with scripted variants)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from clawrec.cli import main
from evaluator.diagnose import DIAGNOSIS, align, diagnose, steps
from rundir.reader import RunDir

FIX = Path(__file__).resolve().parent / "fixtures"
REAL = Path(__file__).resolve().parents[1] / "fixtures" / "runs" / "real" / "travel"


@pytest.fixture
def runs(tmp_path) -> Path:
    """Copies of the fixture runs (diagnose writes diagnosis.json into the run)."""
    shutil.copytree(FIX, tmp_path / "runs")
    return tmp_path / "runs"


def test_steps_drop_noise_and_merge_a_fields_events():
    s = steps(RunDir(FIX / "reference"))
    # 16 actions: load, focus and keystrokes are noise; input+change of one field is one fill with its final value
    assert [x.describe() for x in s] == [
        "navigate {sites.contact}/", 'click link "Contact"', "navigate {sites.contact}/contact",
        'fill textbox "Full name" = "Alex Doe"', 'fill textbox "E-mail" = "alex@example.com"',
        'fill combobox "Topic" = "billing"', 'click button "Send message"', "submit form#contact-form"]


def test_detour_is_the_first_divergence_with_screenshots_and_payload(runs):
    d = diagnose(runs / "agent-detour", runs / "reference")
    assert [r.status for r in d.rows] == ["same", "extra", "extra", "same", "same", "same", "value", "same", "same",
                                          "same"]
    div = d.divergence
    assert div["step"] == 2 and div["status"] == "extra" and div["reference"] is None
    assert div["agent"]["seq"] == 4 and div["agent"]["type"] == "click" and "About" in div["agent"]["target"]
    assert div["agent_url"] == "http://127.0.0.1:40002/"
    assert div["agent_screenshot"] == "screenshots/000001.jpg" and div["reference_screenshot"] == \
        "screenshots/000001.jpg"
    assert (runs / "agent-detour" / div["agent_screenshot"]).is_file()
    assert d.payload["verdict"] == "FAIL"
    assert [x["condition"] for x in d.payload["differences"]] == ["Field email matches the reference"]
    saved = json.loads((runs / "agent-detour" / DIAGNOSIS).read_text())
    assert saved["first_divergence"]["step"] == 2 and len(saved["aligned"]) == 10
    assert saved["aligned"][6]["agent"]["value"] == "alex@exmaple.com" and saved["steps"]["extra"] == 2


def test_screenshot_nearest_in_time_to_the_divergence(runs):
    d = diagnose(runs / "agent-detour", runs / "reference", write=False)
    value_row = next(r for r in d.rows if r.status == "value")
    assert value_row.agent.t == pytest.approx(4.5)
    from evaluator.diagnose import nearest_screenshot
    assert nearest_screenshot(RunDir(runs / "agent-detour"), 1.3) == "screenshots/000002.jpg"  # the about page
    assert nearest_screenshot(RunDir(runs / "agent-detour"), 3.0) == "screenshots/000003.jpg"  # contact form
    assert nearest_screenshot(RunDir(runs / "agent-detour"), 4.5) == "screenshots/000004.jpg"  # sent


@pytest.mark.parametrize("run, step, status, agent, reference", [
    ("r04-wrong-name", 20, "value", 'fill textbox "First name" = "Alec"', 'fill textbox "First name" = "Alex"'),
    ("r07-wrong-date", 12, "differs", 'click button "Wednesday, December 30, 2026"',
     'click button "Thursday, December 31, 2026"'),
    ("r09-gives-up", 4, "missing", None, 'click button "Accept all cookies"'),
])
def test_real_corpus_divergences(run, step, status, agent, reference, tmp_path):
    shutil.copytree(REAL / run, tmp_path / run)
    d = diagnose(tmp_path / run, REAL / "reference")
    div = d.divergence
    assert (div["step"], div["status"]) == (step, status)
    assert (div["agent"]["text"] if div["agent"] else None) == agent
    assert div["reference"]["text"] == reference


@pytest.mark.parametrize("run", ["r01-correct", "r02-case-space", "r03-phone-format"])
def test_real_corpus_correct_runs_do_not_diverge(run, tmp_path):
    shutil.copytree(REAL / run, tmp_path / run)
    d = diagnose(tmp_path / run, REAL / "reference")
    assert d.divergence is None and d.counts["same"] == len(d.rows) == 28


def test_reference_and_spec_come_from_the_manifest(tmp_path, capsys):
    """No --reference: the manifest names the spec (relative to the run), the spec names the reference."""
    real = tmp_path / "real"
    shutil.copytree(REAL.parent, real, ignore=shutil.ignore_patterns("*.jpg"))
    code = main(["diagnose", str(real / "travel" / "r06-wrong-dob")])
    out, err = capsys.readouterr()
    assert code == 0, err
    saved = json.loads((real / "travel" / "r06-wrong-dob" / DIAGNOSIS).read_text())
    assert saved["reference"] == str((real / "travel" / "reference").resolve())
    assert saved["first_divergence"]["reference"]["text"] == 'fill textbox "Date of birth" = "1990-04-12"'
    # with the spec, the payload comparison includes its `expect`
    assert "Field passengers.0.date_of_birth equals \"1990-04-12\"" in out and "note: spec" not in out


def test_cli_prints_a_summary_and_writes_the_file(runs, capsys):
    code = main(["diagnose", str(runs / "agent-detour"), "--reference", str(runs / "reference")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "first divergence at step 2 (extra)" in out
    assert 'click link "<img src=x onerror="alert(1)">About"' in out  # shown literally, not as rich markup
    assert "Field email matches the reference" in out and "value" in out
    assert out.strip().splitlines()[-1] == f"wrote {runs / 'agent-detour' / DIAGNOSIS}"


def test_a_cut_last_line_is_a_note_not_an_error(runs, capsys):
    with open(runs / "agent-detour" / "actions.jsonl", "a") as fh:
        fh.write('{"t": 9.9, "seq": 20, "type": "cli')  # a crash cut the last record
    d = diagnose(runs / "agent-detour", runs / "reference", write=False)
    assert d.divergence["step"] == 2 and any("line 20 is cut" in n for n in d.notes)


def _corrupt_middle(runs: Path) -> list[str]:
    p = runs / "agent-detour" / "actions.jsonl"
    lines = p.read_text().splitlines()
    lines[4] = lines[4][:30]
    p.write_text("\n".join(lines) + "\n")
    return [str(runs / "agent-detour"), "--reference", str(runs / "reference")]


@pytest.mark.parametrize("make_args, message", [
    (lambda r: ["/nonexistent/run"], "/nonexistent/run: not a run directory"),
    (lambda r: [str(r / "agent-detour"), "--reference", "/nonexistent/ref"], "reference /nonexistent/ref: not a run"),
    (lambda r: [str(r / "agent-detour")], "no reference run (the spec names none); pass --reference"),
    (lambda r: [str(r / "agent-detour"), "--reference", str(r / "agent-detour")], "is its own reference"),
    (_corrupt_middle, "agent-detour/actions.jsonl:5: corrupt JSONL line"),
])
def test_bad_input_is_one_line_and_exit_2(make_args, message, runs, capsys):
    code = main(["diagnose", *make_args(runs)])
    out, err = capsys.readouterr()
    assert code == 2 and err.startswith("clawrec: ") and err.count("\n") == 1 and message in err, err
    assert "Traceback" not in err and not (runs / "agent-detour" / DIAGNOSIS).exists()


def test_align_pairs_a_replaced_block_then_reports_leftovers():
    ref, agent = steps(RunDir(FIX / "reference")), steps(RunDir(FIX / "agent-detour"))
    rows = align(agent[:1] + agent[5:], ref)  # the agent skipped "click Contact" and its navigation
    assert [r.status for r in rows][:3] == ["same", "missing", "missing"]
