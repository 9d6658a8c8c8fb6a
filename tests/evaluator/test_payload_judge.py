"""The payload judge against the labelled corpus (tests/fixtures/runs/labels.json) and its edge cases."""

from __future__ import annotations

import json

import pytest

from evaluator.payload_judge import judge_payload
from taskspec.fieldpath import lookup as get_path
from rundir.reader import RunDir
from evaluator.verdict import check_verdict, write_verdict
from tests.evaluator.helpers import RUNS, copy_run, labels, spec_from_yaml

CORPUS = labels()


def test_corpus_is_big_and_balanced():
    assert len(CORPUS) >= 12
    assert {e["label"] for e in CORPUS} == {"PASS", "FAIL"}


def test_real_corpus_spans_sites_and_cases():
    """The recorded part alone (real/labels.json): >= 16 runs over >= 3 sites, every run has a why and a reference."""
    real = [e for e in CORPUS if e["run"].startswith("real/")]
    assert len(real) >= 16
    assert len({e["spec"] for e in real}) >= 3 and {e["label"] for e in real} == {"PASS", "FAIL"}
    for e in real:
        assert e["why"] and (RUNS / e["reference"] / "interceptions.jsonl").is_file()
        assert json.loads((RUNS / e["run"] / "manifest.json").read_text())["task"]["id"] in e["spec"]


def test_real_corpus_has_no_recorder_channel_frames():
    """http.jsonl holds the page's traffic only: never the recorder's own extension channel (its frames carry a token)."""
    runs = sorted((RUNS / "real").glob("*/*/http.jsonl"))
    assert len(runs) >= 16
    for path in runs:
        for n, line in enumerate(path.read_text().splitlines(), 1):
            rec = json.loads(line)
            if rec.get("type") == "websocket" and isinstance(rec.get("payload"), str):
                assert '"token"' not in rec["payload"], f"{path}:{n} is a recorder channel frame"


@pytest.mark.parametrize("entry", CORPUS, ids=[e["run"] for e in CORPUS])
def test_payload_judge_agrees_with_label(entry):
    spec = spec_from_yaml(RUNS / entry["spec"])
    ref = RunDir(RUNS / entry["reference"]) if entry.get("reference") else None
    v = judge_payload(RunDir(RUNS / entry["run"]), spec, ref)
    assert v.verdict == entry["label"], f"{entry['run']} ({entry['why']}): {v.justification}"
    assert check_verdict(v.to_dict()) == []
    for c in v.conditions:  # every condition points at evidence that exists
        for e in c.evidence:
            rd = RunDir(RUNS / (entry["run"] if e.run == "agent" else entry["reference"]))
            if e.line is not None:
                assert rd.check_evidence(e.file, line=e.line) is None


def _judge(rel, ref="travel/reference", spec="specs/travel-flight-oneway.yaml"):
    return judge_payload(RunDir(RUNS / rel), spec_from_yaml(RUNS / spec) if spec else None,
                         RunDir(RUNS / ref) if ref else None)


def test_no_submission_says_never_sent():
    v = _judge("travel/a09-no-submission")
    assert v.verdict == "FAIL" and "terminal request never sent" in v.justification
    assert "timeout" in v.conditions[0].detail


def test_wrong_field_names_field_and_values_with_line():
    v = _judge("travel/a05-wrong-date")
    bad = [c for c in v.conditions if not c.met]
    assert [c.condition for c in bad] == ["Field date matches the reference"]
    assert '"2026-12-30" vs reference "2026-12-31"' in bad[0].detail
    assert {(e.run, e.file, e.line) for e in bad[0].evidence} == {("agent", "interceptions.jsonl", 1),
                                                                 ("reference", "interceptions.jsonl", 1)}


def test_wrong_endpoint_fails_on_endpoint():
    v = _judge("travel/a08-wrong-endpoint")
    ep = v.conditions[0]
    assert not ep.met and "intercept[1]" in ep.detail and "/api/holds" in ep.detail
    v = _judge("contact/b05-wrong-endpoint", "contact/reference", "specs/daily-contact-billing.yaml")
    assert not v.conditions[0].met and "/newsletter/submit" in v.conditions[0].detail


def test_volatile_and_free_text_are_skipped_and_reported():
    v = _judge("contact/b01-correct", "contact/reference", "specs/daily-contact-billing.yaml")
    skipped = {s["field"]: s["reason"] for s in v.skipped_fields}
    assert skipped["ts"] == "volatile in spec"
    assert "token" in skipped["csrf_token"]
    assert "free text" in skipped["message"]
    v = _judge("travel/a01-correct")
    assert "request_id" in {s["field"] for s in v.skipped_fields}


def test_normalized_matches_say_how():
    v = _judge("travel/a02-date-us")
    date = next(c for c in v.conditions if c.condition == "Field date matches the reference")
    assert date.met and "(date)" in date.detail


def test_missing_reference_judges_against_expect_with_note():
    v = _judge("travel/a01-correct", ref=None)
    assert v.verdict == "PASS" and any("no reference run" in n for n in v.notes)
    v = _judge("travel/a06-wrong-cabin", ref=None)
    assert v.verdict == "FAIL"
    assert any(c.condition.startswith("Field cabin equals") and not c.met for c in v.conditions)


def test_corrupt_lines_are_noted_and_verdict_still_given(tmp_path):
    v = _judge("travel/a10-crashed-corrupt")
    assert v.verdict == "PASS"
    assert "interceptions.jsonl: line 2 is corrupt (skipped)" in v.notes
    assert any(n.startswith("actions.jsonl: line") for n in v.notes)
    run = copy_run("travel/a10-crashed-corrupt", tmp_path)
    out = write_verdict(run, judge_payload(RunDir(run), spec_from_yaml(RUNS / "specs/travel-flight-oneway.yaml"),
                                           RunDir(RUNS / "travel/reference")))
    assert json.loads(out.read_text())["verdict"] == "PASS"


def test_first_catch_is_decisive():
    v = _judge("travel/a11-wrong-then-right")
    assert v.verdict == "FAIL" and any("2 catches" in n for n in v.notes)


def test_without_spec_compares_every_reference_field():
    v = _judge("travel/a05-wrong-date", spec=None)
    assert v.verdict == "FAIL"
    v = _judge("travel/a02-date-us", spec=None)
    assert v.verdict == "PASS", v.justification


def test_get_path_list_bodies():
    assert get_path([{"operationName": "A"}, {"operationName": "B", "variables": {"x": 1}}], "variables.x") == 1
    assert get_path({"a": [{"b": 2}]}, "a.0.b") == 2


def test_local_sites_on_other_ports_still_match(tmp_path):
    v = _judge("travel/a12-other-port")
    assert v.verdict == "PASS" and not any("port" in n for n in v.notes)  # mapped through manifest `sites`
    run = copy_run("travel/a12-other-port", tmp_path)
    m = json.loads((run / "manifest.json").read_text())
    del m["sites"]
    (run / "manifest.json").write_text(json.dumps(m))
    v = judge_payload(RunDir(run), spec_from_yaml(RUNS / "specs/travel-flight-oneway.yaml"),
                      RunDir(RUNS / "travel/reference"))
    assert v.verdict == "PASS" and any("differ only by port" in n for n in v.notes)
    lines = (run / "interceptions.jsonl").read_text().replace("http://127.0.0.1:8911", "https://evil.example")
    (run / "interceptions.jsonl").write_text(lines)
    v = judge_payload(RunDir(run), spec_from_yaml(RUNS / "specs/travel-flight-oneway.yaml"),
                      RunDir(RUNS / "travel/reference"))
    assert v.verdict == "FAIL" and "https://evil.example/api/bookings" in v.conditions[0].detail


def test_verdict_validation_rejects_bad_verdicts(tmp_path):
    from evaluator.errors import VerdictError
    from evaluator.verdict import Condition, Evidence, Verdict, check_submission

    assert "verdict must be PASS or FAIL, got 'MAYBE'" in check_submission({"verdict": "MAYBE"})
    probs = check_submission({"verdict": "PASS", "justification": "ok", "conditions": [
        {"condition": "x", "met": False, "evidence": [{"run": "agent", "file": "actions.jsonl", "line": "3"}]}]})
    assert "verdict is PASS but a condition is not met" in probs
    assert "conditions[0].evidence[0].line must be an integer" in probs
    bad = Verdict("PASS", "payload", [Condition("x", False, [Evidence("agent", "actions.jsonl", 1)])], "j")
    with pytest.raises(VerdictError, match="a condition is not met"):
        write_verdict(tmp_path, bad)
    assert not (tmp_path / "verdict.json").exists()


def test_divergence_points_at_the_action_that_typed_the_wrong_value():
    v = _judge("real/travel/r04-wrong-name", "real/travel/reference", "real/specs/travel-flight-oneway.yaml")
    assert v.divergence == {"step": 59, "agent": 'passengers.0.first_name = "Alec"',
                            "reference": 'passengers.0.first_name = "Alex"'}
    rd = RunDir(RUNS / "real/travel/r04-wrong-name")
    assert next(a for a in rd.actions if a.seq == 59).value == "Alec"
    assert _judge("travel/a01-correct").divergence is None


def test_uncaught_request_to_the_terminal_url_is_named():
    v = _judge("real/travel/r08-business", "real/travel/reference", "real/specs/travel-flight-oneway.yaml")
    c = v.conditions[0]
    assert v.verdict == "FAIL" and "did not satisfy the rule's fields/equals" in c.detail
    http = [e for e in c.evidence if e.file == "http.jsonl"]
    rec = RunDir(RUNS / "real/travel/r08-business").http.at_line(http[0].line)
    assert rec.method == "POST" and rec.url.endswith("/api/bookings") and rec.body["value"]["cabin"] == "business"


def test_a_form_key_with_an_empty_bracket_is_one_path():
    """PHP's multi-value `_email[]` (Roundcube's contact form) stays `_email[]`: `_email.` would be a path with an
    empty segment, which validate and the schema refuse; `a[b][0]` is still `a.b.0`."""
    from taskspec.fieldpath import dotted, leaf_paths

    form = {"_email[]": "a@example.test", "pax[0][name]": "Ann", "_tags[]": ["x", "y"]}
    assert dotted("_email[]") == "_email[]" and dotted("pax[0][name]") == "pax.0.name"
    assert leaf_paths(form) == ["_email[]", "pax.0.name", "_tags[].0", "_tags[].1"]
    assert get_path(form, "_email[]") == "a@example.test" and get_path(form, "pax.0.name") == "Ann"
