"""`clawrec view` without a browser: the page's structure on real and hand-built runs (steps as the unit, evidence
anchors, media inlined or copied beside the page, page-derived text escaped, bad input). The rendered page in
Chromium is tests/viewer/test_report_browser.py."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import pytest

from clawrec.cli import main
from evaluator.diagnose import diagnose
from evaluator.judge import judge_run
from evaluator.report import write_report

FIX = Path(__file__).resolve().parents[1] / "diagnose" / "fixtures"
REAL = Path(__file__).resolve().parents[1] / "fixtures" / "runs" / "real" / "travel"
EVIL_NAME = '<img src=x onerror="alert(1)">About'
EVIL_MESSAGE = "</script><script>alert('x')</script>"


def view(capsys, *args: object) -> tuple[int, str, str]:
    code = main(["view", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def data(page: str) -> dict:
    return json.loads(re.search(r"<script type=application/json id=report-data>(.*?)</script>", page, re.S).group(1))


@pytest.fixture
def judged(tmp_path) -> Path:
    """The detour run (a hostile link text and agent message), judged and diagnosed against its reference."""
    runs = tmp_path / "runs"
    shutil.copytree(FIX, runs)
    run = runs / "agent-detour"
    judge_run(run, None, runs / "reference")
    diagnose(run, runs / "reference")
    return run


def test_steps_are_rows_with_one_line_summaries_and_evidence_anchors(judged, capsys):
    code, out, err = view(capsys, judged)
    assert code == 0, err
    page = (judged / "report.html").read_text()
    assert out.strip() == str(judged / "report.html")
    steps = re.findall(r"<details class=step id='agent-step-(\d+)'", page)
    assert steps == [str(n) for n in range(1, 10)]  # a person's run: one step per action burst
    assert "fill textbox &quot;E-mail&quot; = &quot;alex@exmaple.com&quot;" in page
    # the diagnosis on top: category, cause, a link to the step
    assert "Failure: <span class=cat data-category='wrong_value'>wrong value</span>" in page
    assert "<a class=go href='#agent-step-7'>go to step 7</a>" in page
    # verdict evidence links jump to the record (interceptions.jsonl line 1 is in the last step)
    assert "href='#rec-interceptions-jsonl-1'" in page and "id='rec-interceptions-jsonl-1'" in page
    # untrusted text: escaped wherever it appears, never raw; only the report's own scripts
    assert EVIL_NAME not in page and "onerror=\"alert" not in page and EVIL_MESSAGE not in page
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;About" in page
    assert page.count("<script") == 2 and "</script><script>alert" not in page
    assert data(page)["steps"][0] == {"n": 1, "t0": 0.0}


def test_small_runs_inline_their_media_and_big_ones_get_a_folder(judged, tmp_path, capsys):
    assert view(capsys, judged)[0] == 0
    page = (judged / "report.html").read_text()
    media = data(page)["media"]
    assert media and all(v.startswith("data:image/jpeg;base64,") for v in media.values())
    assert "screenshots/0000" not in page and not (judged / "report").exists()  # no link back into the run
    out = tmp_path / "pages" / "r.html"
    code, _out, err = view(capsys, judged, "--out", out, "--no-embed")
    assert code == 0, err
    media = data(out.read_text())["media"]
    assert set(media.values()) == {f"r/{k}.jpg" for k in media}
    assert all((out.parent / v).is_file() for v in media.values()) and (out.parent / "r" / ".clawrec-report").is_file()
    # a folder of that name that is not an earlier report's media is never replaced
    (tmp_path / "pages" / "s").mkdir()
    (tmp_path / "pages" / "s" / "keep.txt").write_text("mine")
    code, _out, err = view(capsys, judged, "--out", tmp_path / "pages" / "s.html", "--no-embed")
    assert code == 2 and "is not a report's media folder" in err and (tmp_path / "pages" / "s" / "keep.txt").exists()


def test_real_run_side_by_side_marks_the_divergence_that_explains_the_failure(tmp_path, capsys):
    run = tmp_path / "v01-dough"
    shutil.copytree(REAL / "v01-dough", run)
    code, _out, err = view(capsys, run, "--reference", REAL / "reference")
    assert code == 0, err
    page = (run / "report.html").read_text()
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())
    assert "Failure: wrong value" in text and "step 14 (seq 54) typed 'Dough' into textbox \"Last name\"" in text
    relevant = re.findall(r"<tr class='value relevant' id='row-(\d+)'>(.*?)</tr>", page, re.S)
    assert len(relevant) == 1 and "href='#agent-step-14'" in relevant[0][1] and "Dough" in relevant[0][1]
    assert page.count("class='missing'") == 2  # the skipped filter and sort: shown, not marked
    assert relevant[0][1].startswith("<td>▶</td>")  # no row index of its own: each run's step numbers only
    # a screenshot on both sides of every aligned step (the reference kept few: its last one before the step)
    side = re.search(r"<table class=side>(.*?)</table>", page, re.S).group(1)
    for row in re.findall(r"<tr class='(?:same|value)[^']*' id='row-\d+'>(.*?)</tr>", side, re.S):
        assert row.count("<img class=thumb") == 2, row
    assert "last screenshot before this step" in side
    assert not (run / "diagnosis.json").exists()  # view computes it; only `diagnose` writes it
    # one step per tool call; the Dough step holds its call, result and the field's actions
    step = re.search(r"<details class=step id='agent-step-14'.*?</details>", page, re.S).group(0)
    step = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", step)).split())
    assert "tool_call type" in step and "seq 54 input input Last name = Dough" in step


def test_demo_reference_run_is_a_few_screens_of_collapsed_steps(tmp_path):
    ref = Path(__file__).resolve().parents[2] / "runs" / "reference" / "travel-flight-oneway"
    out = write_report(ref, tmp_path / "r.html")
    page = out.read_text()
    n = len(re.findall(r"<details class=step ", page))
    assert 15 <= n <= 40 and page.count("<details class=step open") == 0  # 81 actions -> ~28 steps, collapsed


@pytest.mark.parametrize("make_args, message", [
    (lambda r: ["/nonexistent/run"], "/nonexistent/run: not a run directory"),
    (lambda r: [str(r / "screenshots")], "not a run directory"),
    (lambda r: [str(r), "--reference", "/nonexistent/ref"], "--reference /nonexistent/ref: not a run directory"),
])
def test_bad_input_is_one_line_and_exit_2(make_args, message, judged, capsys):
    code, _out, err = view(capsys, *make_args(judged))
    assert code == 2 and err.startswith("clawrec: ") and err.count("\n") == 1 and message in err, err


def test_corrupt_line_inside_a_layer_is_refused(judged, capsys):
    p = judged / "http.jsonl"
    lines = p.read_text().splitlines()
    p.write_text("\n".join([lines[0], "{not json", *lines[1:]]) + "\n")
    code, _out, err = view(capsys, judged)
    assert code == 2 and "http.jsonl:2: corrupt JSONL line" in err and not (judged / "report.html").exists()


def test_crashed_run_without_manifest_and_with_a_cut_line_still_renders(tmp_path, capsys):
    run = tmp_path / "crashed"
    shutil.copytree(FIX / "reference", run)
    (run / "manifest.json").unlink()
    with open(run / "http.jsonl", "a") as fh:
        fh.write('{"t": 9.0, "type": "request", "url": "http://127.0.0.1:40001/api/x", "meth')
    code, _out, err = view(capsys, run)
    assert code == 0, err
    page = (run / "report.html").read_text()
    assert "http.jsonl line 5 is cut (crashed run?)" in page and "manifest.json: missing" in page
    assert "api/contact" in page and page.count("is cut") == 1 and "no video recorded" in page


def test_self_report_gap_and_where_it_stopped_are_on_top(tmp_path, capsys):
    run = tmp_path / "v02"
    shutil.copytree(REAL / "v02-claims-done", run)
    assert main(["diagnose", str(run), "--reference", str(REAL / "reference")]) == 0
    capsys.readouterr()
    page = write_report(run).read_text()
    top = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page[page.index("<section class=diag"):
                                                               page.index("<section id=verdict")])).split())
    assert top.startswith("Failure: never submitted stopped at step 21 (seq 75) click button \"Continue to review\"")
    assert "self-report gap : the agent said Done: I booked your flight" in top


def test_replay_shaped_calls_keep_their_own_actions(tmp_path):
    """The demo's replay agent logs `click 'From'` then `fill 'From' = …`, and the page reports the field's input
    when it loses focus, after the next call began; the date's events arrive just before the next call's stamp (the
    clock slack). Timings as measured in a demo run: each call's row holds the actions it caused."""
    from evaluator.trajectory import Trajectory
    from rundir.reader import RunDir

    run = tmp_path / "run"
    run.mkdir()
    (run / "manifest.json").write_text(json.dumps({"format_version": 1, "id": "replay", "status": "intercepted",
                                                   "agent": "replay", "duration": 13.0}))
    calls = [(7.010, "click", "click 'From'"), (7.174, "fill", "fill 'From' = 'New York (JFK)'"),
             (7.642, "click", "click 'Trip type From New York (JFK)'"), (12.207, "fill",
             "fill 'Date of birth' = '1990-04-12'"), (12.337, "fill", "fill 'E-mail' = 'a@example.com'"),
             (12.483, "fill", "fill 'Contact e-mail' = 'a@example.com'"), (12.615, "click", "click 'Go'")]
    (run / "agent.jsonl").write_text("".join(json.dumps({"t": t, "role": "tool_call", "tool": tool, "content": c})
                                             + "\n" for t, tool, c in calls))

    def act(seq, t, kind, name, value=None):
        return json.dumps({"t": t, "seq": seq, "type": kind, "value": value, "url": "http://127.0.0.1:1/",
                           "target": {"tag": "input", "role": "textbox", "name": name}}) + "\n"
    (run / "actions.jsonl").write_text("".join([
        act(1, 7.037, "focus", "From"), act(2, 7.043, "click", "From"),
        act(3, 7.647, "input", "From", "New York (JFK)"), act(4, 7.649, "change", "From", "New York (JFK)"),
        act(5, 7.651, "click", "Trip type"),
        act(6, 12.293, "focus", "Date of birth"), act(7, 12.295, "input", "Date of birth", "1990-04-12"),
        act(8, 12.423, "focus", "E-mail"), act(9, 12.506, "input", "E-mail", "a@example.com"),
        act(10, 12.510, "focus", "Contact e-mail"), act(11, 12.643, "input", "Contact e-mail", "a@example.com")]))
    tr = Trajectory(RunDir(run))
    assert [[a.seq for a in st.actions] for st in tr.steps] == [[], [1, 2], [3, 4], [5], [6, 7], [8, 9], [10, 11],
                                                                 []]
    assert tr.steps[1].summary() == 'fill textbox "From" = "New York (JFK)"'  # the click into it begins the fill
    assert tr.steps[7].summary() == "click 'Go'"  # no browser action: the call, its tool named once
