"""`clawrec sop RUN`: the SOP of the committed travel reference and of recorded runs of the same task (no browser);
`--llm` against the local Messages API stand-in (tests/support/model_server.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from clawrec.cli import main
from evaluator.sop import steps_text, write_sop
from evaluator.sop_values import MissingValue, instantiate
from rundir.reader import RunDir
from tests.support.model_script import Turn
from tests.support.model_server import ModelServer

REPO = Path(__file__).resolve().parents[2]
REFERENCE = REPO / "runs" / "reference" / "travel-flight-oneway"
REAL = REPO / "tests" / "fixtures" / "runs" / "real" / "travel"
BOOKING = [
    "Open {sites.travel}",
    'Click the button "Accept all cookies"',
    'Choose the radio "One-way"',
    'Type "New York (JFK)" into the combobox "From"',
    'Type "Los Angeles (LAX)" into the combobox "To"',
    'Click the textbox "Depart"',
    'Click the button "Thursday, December 31, 2026"',
    'Choose "economy" in the combobox "Cabin class"',
    'Click the button "Search flights"',
    'Check the checkbox "Nonstop only"',
    'Click the tab "Cheapest"',
    'Click the button "Select Skylark Air flight SK344, $269"',
    'Type "{user.first_name}" into the textbox "First name"',
    'Type "{user.last_name}" into the textbox "Last name"',
    'Type "{user.date_of_birth}" into the textbox "Date of birth"',
    'Type "{user.email}" into the textbox "E-mail"',
    'Type "{user.email}" into the textbox "Contact e-mail"',
    'Type "{user.phone}" into the textbox "Mobile phone"',
    'Click the button "Continue to review"',
    'Click the button "Confirm and book" (final submission: the terminal step)',
]


def numbered(md: str) -> list[str]:
    return [re.sub(r"^\d+\. ", "", ln) for ln in steps_text(md).splitlines()]


def test_sop_of_the_reference_booking(capsys):
    assert main(["sop", str(REFERENCE)]) == 0
    out = capsys.readouterr().out
    assert numbered(out) == BOOKING
    assert out.startswith("# SOP: travel-flight-oneway\n") and "- `{user.first_name}`: the user's first name, from the user details" in out
    assert "Alex" not in out and "alex.doe" not in out  # an SOP never carries the recorded person's values
    kinds = {json.loads(ln)["type"] for ln in (REFERENCE / "actions.jsonl").read_text().splitlines()}
    assert {"focus", "keydown", "load"} <= kinds  # the noise was recorded ...
    assert not re.search(r"focus|keydown|scroll|load", steps_text(out), re.I)  # ... and is not in the SOP
    assert "Alex" not in steps_text(out) and "alex.doe" not in steps_text(out)


def test_recordings_of_one_task_give_the_same_sop_modulo_values():
    ref = write_sop(RunDir(REFERENCE))
    assert [s.text for s in write_sop(RunDir(REAL / "reference")).steps] == [s.text for s in ref.steps]
    assert [s.text for s in write_sop(RunDir(REAL / "r01-correct")).steps] == [s.text for s in ref.steps]
    other = write_sop(RunDir(REAL / "r04-wrong-name"))  # typed "Alec": not the task's value, so written as typed
    assert [(s.action, s.element) for s in other.steps] == [(s.action, s.element) for s in ref.steps]
    assert 'Type "Alec" into the textbox "First name"' in [s.text for s in other.steps]


def test_json_gives_element_signatures(capsys):
    assert main(["sop", str(REFERENCE), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    steps = data["steps"]
    assert [s["n"] for s in steps] == list(range(1, 21)) and data["parameters"]["user.first_name"] == \
        "the user's first name, from the user details"
    assert [s["terminal"] for s in steps] == [False] * 19 + [True]
    first = next(s for s in steps if s["value"] == "{user.first_name}")
    assert first["action"] == "fill" and first["placeholders"] == ["user.first_name"]
    assert first["element"] == {"role": "textbox", "name": "First name", "label": "First name",
                                "stable": {"tag": "input", "type": "text",
                                           "id": "p1-first_name", "selector": "#p1-first_name"}}
    radio = steps[2]["element"]
    assert radio["role"] == "radio" and "selector" not in radio["stable"]  # positional selector: not stable
    assert steps[0]["element"] is None and steps[0]["url"] == "{sites.travel}"


def test_sop_filled_with_another_tasks_values():
    template = steps_text(write_sop(RunDir(REFERENCE)).markdown())
    task = {"instruction": "x", "user": {"first_name": "Sam", "last_name": "Roe", "email": "sam@example.org",
                                         "phone": "[redacted]", "date_of_birth": "1985-01-02"}, "files": []}
    text = instantiate(template, task, {"travel": "http://127.0.0.1:9999/"})
    assert "1. Open http://127.0.0.1:9999/\n" in text and 'Type "Sam" into the textbox "First name"' in text
    assert 'Type "{user.phone}" into' in text  # a secret is never written in: its placeholder stays
    with pytest.raises(MissingValue, match="user.first_name"):
        instantiate(template, {"user": {}}, {"travel": "http://127.0.0.1:9999/"})


def test_out_file_and_bad_input(tmp_path, capsys):
    out = tmp_path / "sops" / "travel.md"
    assert main(["sop", str(REFERENCE), "--out", str(out)]) == 0
    assert capsys.readouterr().out.strip() == str(out) and numbered(out.read_text()) == BOOKING
    assert main(["sop", str(REFERENCE), "--out", str(tmp_path / "x.jsonl")]) == 2
    assert capsys.readouterr().err == f"clawrec: --out {tmp_path / 'x.jsonl'}: give a .md, .txt or .json file " \
                                      "(refusing to write .jsonl)\n"
    assert main(["sop", str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err == f"clawrec: {tmp_path / 'nope'}: not a run directory (no such directory)\n"
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "manifest.json").write_text(json.dumps({"format_version": 1, "id": "e", "task": {"id": "t"}}))
    assert main(["sop", str(empty)]) == 2
    assert "no browser step recorded" in capsys.readouterr().err


def _rewriter(answers: list[str]):
    def script(request: dict, history) -> Turn:
        return Turn(text=answers[min(history.step, len(answers) - 1)])
    return script


def test_llm_rewrite_keeps_steps_and_placeholders_and_is_cached(tmp_path, capsys, monkeypatch):
    draft = write_sop(RunDir(REFERENCE))
    good = "<sop>\n" + "\n".join(f"{s.n}. {s.text} (to go on with the booking)" for s in draft.steps) + "\n</sop>"
    dropped = good.replace("{user.phone}", "+1 512 555 0142")  # an answer that writes the value in: refused
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    monkeypatch.setenv("CLAWREC_SOP_CACHE", str(tmp_path / "cache"))
    with ModelServer(_rewriter([dropped, good])) as srv:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", srv.base_url)
        assert main(["sop", str(REFERENCE), "--llm"]) == 0
        first = capsys.readouterr()
        assert main(["sop", str(REFERENCE), "--llm"]) == 0  # cached: no second conversation
        second = capsys.readouterr()
        reqs = srv.model_requests("anthropic")
    assert len(reqs) == 2  # the refused answer and the accepted one
    prompt = reqs[0].body["messages"][0]["content"]
    assert "<draft_sop>" in prompt and 'Type "{user.first_name}" into the textbox "First name"' in prompt
    assert "Keep EVERY necessary step" in prompt and "placeholders dropped: {user.phone}" in \
        json.dumps(reqs[1].body["messages"])
    lines = numbered(first.out)
    assert len(lines) == 20 and lines[12] == 'Type "{user.first_name}" into the textbox "First name" (to go on with ' \
                                             'the booking)'
    assert "(final submission: the terminal step)" in lines[-1] and second.out == first.out
    assert "cached" in second.err and "cached" not in first.err


def test_quoted_strings_and_files_become_placeholders():
    from evaluator.sop_values import placeholdered, task_values

    values = task_values({"instruction": 'Post "Ran my first trail half marathon" to my timeline.',
                          "user": {"address": {"city": "Austin"}}, "files": ["/x/files/resume.pdf"]})
    assert placeholdered("Ran my first trail half marathon", values) == ("{quoted.1}", ["quoted.1"])
    assert placeholdered("C:\\fakepath\\resume.pdf", values) == ("{files.resume}", ["files.resume"])
    assert placeholdered("I live in Austin, TX", values) == ("I live in {user.address.city}, TX",
                                                             ["user.address.city"])
    assert placeholdered("economy", values) == ("economy", [])
