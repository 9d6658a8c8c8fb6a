"""`clawrec diagnose`: the failure category, its cause and the divergence that explains it (harmless ones after it),
on hand-built runs with a known detour and on the real recorded travel corpus (runs made by `clawrec run` with
scripted variants). Step numbers are the run's own (the report's rows), the action seq beside them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from clawrec.cli import main
from evaluator.diagnose import DIAGNOSIS, align, diagnose, steps
from rundir.reader import RunDir
from taskspec.load import load_spec

FIX = Path(__file__).resolve().parent / "fixtures"
REAL = Path(__file__).resolve().parents[1] / "fixtures" / "runs" / "real" / "travel"
SPEC = REAL.parent / "specs" / "travel-flight-oneway.yaml"


@pytest.fixture
def runs(tmp_path) -> Path:
    """Copies of the fixture runs (diagnose writes diagnosis.json into the run)."""
    shutil.copytree(FIX, tmp_path / "runs")
    return tmp_path / "runs"


def test_steps_drop_noise_and_merge_a_fields_events():
    s = steps(RunDir(FIX / "reference"))
    # 16 actions: load, focus and keystrokes are noise; input+change of one field is one fill with its final value;
    # the form submission the click caused is part of the click
    assert [x.describe() for x in s] == [
        "navigate {sites.contact}/", 'click link "Contact"', "navigate {sites.contact}/contact",
        'fill textbox "Full name" = "Alex Doe"', 'fill textbox "E-mail" = "alex@example.com"',
        'fill combobox "Topic" = "billing"', 'click button "Send message"']


def test_the_wrong_value_comes_first_and_the_detour_after_it(runs):
    d = diagnose(runs / "agent-detour", runs / "reference")
    assert [r.status for r in d.rows] == ["same", "extra", "extra", "same", "same", "same", "value", "same", "same"]
    assert d.category == "wrong_value"
    assert d.headline().startswith("wrong value: step 7 (seq 15) typed 'alex@exmaple.com' into textbox \"E-mail\"")
    div = d.divergence
    assert (div["step"], div["seq"], div["row"], div["reference_step"], div["relevant"]) == (7, 15, 7, 5, True)
    assert div["agent_url"] == "http://127.0.0.1:40002/contact"
    assert div["agent_screenshot"] == "screenshots/000004.jpg" and div["reference_screenshot"] == \
        "screenshots/000003.jpg"
    # the detour (a click on "About" and its page) is named after it, as harmless
    assert [(x["step"], x["status"], x["relevant"]) for x in d.divergences] == [(7, "value", True),
                                                                               (2, "extra", False),
                                                                               (3, "extra", False)]
    assert "About" in d.divergences[1]["agent"]["target"]
    assert d.payload["verdict"] == "FAIL"
    assert [x["condition"] for x in d.payload["differences"]] == ["Field email matches the reference"]
    saved = json.loads((runs / "agent-detour" / DIAGNOSIS).read_text())
    assert saved["category"] == "wrong_value" and saved["category_label"] == "wrong value"
    assert saved["cause"]["step"] == 7 and saved["cause"]["seq"] == 15 and saved["cause"]["field"] == "email"
    assert saved["first_divergence"]["step"] == 7 and len(saved["aligned"]) == 9
    assert saved["aligned"][6]["agent"]["value"] == "alex@exmaple.com" and saved["steps"]["extra"] == 2
    assert (saved["aligned"][6]["agent_step"], saved["aligned"][6]["reference_step"]) == (7, 5)


def test_screenshot_nearest_in_time_to_the_divergence(runs):
    d = diagnose(runs / "agent-detour", runs / "reference", write=False)
    value_row = next(r for r in d.rows if r.status == "value")
    assert value_row.agent.t == pytest.approx(4.5)
    from evaluator.diagnose import nearest_screenshot
    assert nearest_screenshot(RunDir(runs / "agent-detour"), 1.3) == "screenshots/000002.jpg"  # the about page
    assert nearest_screenshot(RunDir(runs / "agent-detour"), 3.0) == "screenshots/000003.jpg"  # contact form
    assert nearest_screenshot(RunDir(runs / "agent-detour"), 4.5) == "screenshots/000004.jpg"  # sent


@pytest.mark.parametrize("run, category, headline", [
    ("r04-wrong-name", "wrong_value", "wrong value: step 14 (seq 59) typed 'Alec' into textbox \"First name\""),
    ("r07-wrong-date", "wrong_value", "wrong value: step 8 (seq 45) chose '2026-12-30' (click button "
                                      "\"Wednesday, December 30, 2026\")"),
    ("r08-business", "wrong_value", "wrong value: step 9 (seq 45) typed 'business' into combobox \"Cabin class\""),
    ("r09-gives-up", "never_submitted", "never submitted: stopped at step 2 (seq 6) navigate {sites.travel}/; the "
                                        "reference went on to click button \"Accept all cookies\""),
    # skips the harmless "Nonstop only" filter and "Cheapest" sort, then types "Dough" for "Doe"
    ("v01-dough", "wrong_value", "wrong value: step 14 (seq 54) typed 'Dough' into textbox \"Last name\""),
    # stops on the review page and says it booked the flight
    ("v02-claims-done", "never_submitted", "never submitted: stopped at step 21 (seq 75) click button \"Continue to "
                                           "review\"; the reference went on to click button \"Confirm and book\""),
])
def test_real_corpus_categories_and_causes(run, category, headline, tmp_path):
    shutil.copytree(REAL / run, tmp_path / run)
    d = diagnose(tmp_path / run, REAL / "reference", load_spec(SPEC))
    assert d.category == category and d.headline().startswith(headline), d.headline()
    assert (d.self_report_gap is not None) == (run == "v02-claims-done")


def test_dough_names_the_typing_step_and_keeps_the_skipped_filter_harmless(tmp_path, capsys):
    shutil.copytree(REAL.parent, tmp_path / "real", ignore=shutil.ignore_patterns("*.jpg"))
    run = tmp_path / "real" / "travel" / "v01-dough"
    assert main(["diagnose", str(run)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("wrong value: step 14 (seq 54) typed 'Dough' into textbox \"Last name\": Field "
                             "passengers.0.last_name equals \"Doe\" — got \"Dough\""), out[0]
    assert any(line.startswith("divergence that explains it: step 14 (seq 54): same step, other value") for line in out)
    assert any("before step 12: missing" in line and "Nonstop only" in line for line in out)
    saved = json.loads((run / DIAGNOSIS).read_text())
    assert [(x["step"], x["relevant"]) for x in saved["divergences"]][:1] == [(14, True)]
    assert all(not x["relevant"] for x in saved["divergences"][1:])


def test_claims_success_without_submitting_is_a_self_report_gap(tmp_path, capsys):
    shutil.copytree(REAL / "v02-claims-done", tmp_path / "run")
    assert main(["diagnose", str(tmp_path / "run"), "--reference", str(REAL / "reference"), "--spec",
                 str(SPEC)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("never submitted: stopped at step 21") and "SELF-REPORT GAP" in out[0]
    assert out[1].startswith("  self-report gap: the agent said 'Done: I booked your flight")
    saved = json.loads((tmp_path / "run" / DIAGNOSIS).read_text())
    assert saved["category"] == "never_submitted" and saved["cause"]["step"] == 21
    assert saved["self_report_gap"]["claimed"].startswith("Done: I booked your flight")


@pytest.mark.parametrize("run", ["r01-correct", "r02-case-space", "r03-phone-format"])
def test_real_corpus_correct_runs_do_not_diverge(run, tmp_path):
    shutil.copytree(REAL / run, tmp_path / run)
    d = diagnose(tmp_path / run, REAL / "reference")
    assert d.divergence is None and d.counts["same"] == len(d.rows) == 21 and d.category is None


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
    assert out.startswith("wrong value: step 7 (seq 15) typed")
    assert 'click link "<img src=x onerror="alert(1)">About"' in out  # shown literally, not as rich markup
    assert "Field email matches the reference" in out and "value" in out
    assert out.strip().splitlines()[-1] == f"wrote {runs / 'agent-detour' / DIAGNOSIS}"


def test_a_cut_last_line_is_a_note_not_an_error(runs, capsys):
    with open(runs / "agent-detour" / "actions.jsonl", "a") as fh:
        fh.write('{"t": 9.9, "seq": 20, "type": "cli')  # a crash cut the last record
    d = diagnose(runs / "agent-detour", runs / "reference", write=False)
    assert d.divergence["step"] == 7 and any("line 20 is cut" in n for n in d.notes)


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
