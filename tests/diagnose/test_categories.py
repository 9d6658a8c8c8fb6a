"""Every failing run of the labelled corpus gets the failure category a person would give it, and the passing runs
none; the categories real recordings do not show (crash, loop, off task, verification wall) on edited copies."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evaluator.diagnose import diagnose
from evaluator.failure import CATEGORIES
from taskspec.load import load_spec

RUNS = Path(__file__).resolve().parents[1] / "fixtures" / "runs"
EXPECTED = {  # run -> category (anything labelled PASS: None)
    "real/travel/r04-wrong-name": "wrong_value", "real/travel/r05-wrong-email": "wrong_value",
    "real/travel/r06-wrong-dob": "wrong_value", "real/travel/r07-wrong-date": "wrong_value",
    "real/travel/r08-business": "wrong_value", "real/travel/r09-gives-up": "never_submitted",
    "real/jobs/j03-no-salary": "wrong_value", "real/jobs/j04-wrong-experience": "wrong_value",
    "real/shop/s02-wrong-size": "wrong_value", "real/shop/s03-no-socks": "missing_field",
    "real/shop/s04-gives-up": "never_submitted", "real/social-status/p02-public": "wrong_value",
    "real/social-status/p03-shares-instead": "wrong_endpoint", "real/social-share/h01-wrong-message": "wrong_value",
    "real/social-share/h02-timeline": "wrong_value", "real/travel/v01-dough": "wrong_value",
    "real/travel/v02-claims-done": "never_submitted", "travel/a05-wrong-date": "wrong_value",
    "travel/a06-wrong-cabin": "wrong_value", "travel/a07-missing-email": "missing_field",
    "travel/a08-wrong-endpoint": "wrong_endpoint", "travel/a09-no-submission": "limit",
    "travel/a11-wrong-then-right": "wrong_value", "contact/b02-wrong-phone": "wrong_value",
    "contact/b04-missing-phone": "missing_field", "contact/b05-wrong-endpoint": "wrong_endpoint",
    "contact/b06-wrong-subject": "wrong_value"}
LABELS = json.loads((RUNS / "labels.json").read_text()) + json.loads((RUNS / "real" / "labels.json").read_text())


def test_the_corpus_categories():
    got = {}
    for e in LABELS:
        d = diagnose(RUNS / e["run"], RUNS / e["reference"], load_spec(RUNS / e["spec"]), write=False)
        got[e["run"]] = d.category
        assert d.category in (None, *CATEGORIES), e["run"]
        assert (d.category is None) == (e["label"] == "PASS"), (e["run"], d.headline())
        if d.category in ("wrong_value", "missing_field", "never_submitted"):
            assert d.cause.step is not None or "left" in d.cause.summary, (e["run"], d.headline())
    assert {k: v for k, v in got.items() if v is not None} == EXPECTED


def _copy(tmp_path: Path, run: str = "real/travel/r09-gives-up") -> Path:
    dst = tmp_path / "run"
    shutil.copytree(RUNS / run, dst)
    return dst


def _edit(run: Path, name: str, fn) -> None:
    p = run / name
    if name.endswith(".json"):
        p.write_text(json.dumps(fn(json.loads(p.read_text()))))
    else:
        p.write_text("".join(json.dumps(r) + "\n" for r in fn([json.loads(x) for x in p.read_text().splitlines()])))


def _category(run: Path) -> tuple[str | None, str]:
    d = diagnose(run, RUNS / "real/travel/reference", load_spec(RUNS / "real/specs/travel-flight-oneway.yaml"),
                 write=False)
    return d.category, d.headline()


@pytest.mark.parametrize("status, stop, category", [
    ("crashed", "recorder: Chromium killed by SIGKILL", "infrastructure"),
    ("agent_error", "agent crashed: RuntimeError: boom", "agent_crash"),
    ("timeout", "step limit reached (100 steps)", "limit"),
])
def test_how_the_run_ended(tmp_path, status, stop, category):
    run = _copy(tmp_path)
    _edit(run, "manifest.json", lambda m: {**m, "status": status, "stop_reason": stop})
    assert _category(run)[0] == category


def test_a_verification_wall(tmp_path):
    run = _copy(tmp_path)
    _edit(run, "http.jsonl", lambda rs: rs + [{**rs[-1], "t": rs[-1]["t"] + 0.1,
                                               "url": "https://www.google.com/recaptcha/api2/anchor?k=x"}])
    assert _category(run)[0] == "verification_wall"


def test_a_loop_and_leaving_the_site(tmp_path):
    run = _copy(tmp_path, "real/travel/v02-claims-done")
    click = next(a for a in map(json.loads, (run / "actions.jsonl").read_text().splitlines()) if a["type"] == "click")
    _edit(run, "actions.jsonl", lambda rs: rs + [{**click, "seq": 900 + i, "t": rs[-1]["t"] + i} for i in range(4)])
    category, headline = _category(run)
    assert category == "stuck_looping" and "repeats click button \"Accept all cookies\"" in headline
    run2 = _copy(tmp_path / "b")
    _edit(run2, "actions.jsonl", lambda rs: rs + [{**rs[-1], "seq": 999, "t": rs[-1]["t"] + 1, "type": "navigate",
                                                   "url": "http://127.0.0.1:9/elsewhere"}])
    category, headline = _category(run2)
    assert category == "off_task" and "http://127.0.0.1:9/elsewhere" in headline
