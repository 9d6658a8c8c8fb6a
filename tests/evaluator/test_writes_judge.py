"""The payload judge with a spec's `writes:` (evaluator/writes_judge.py) on hand-built run directories: the site holds
the LAST matching write that reached it BEFORE the terminal catch (a later one, a caught one, an unanswered one never
count); a write that never happened is each of its fields missing; every judged field names its request and step;
a spec without writes judges exactly as before."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from evaluator.payload_judge import judge_payload
from evaluator.verdict import check_verdict
from rundir.reader import RunDir
from taskspec.load import load_spec

SPEC = """\
version: 1
id: basket
instruction: Order 2 mugs to 75001 Paris.
start_url: http://127.0.0.1:8000/
intercept:
  - url: http://127.0.0.1:8000/checkout/preview/
    equals: {action: place_order}
expect: {action: place_order}
writes:
  - url: http://127.0.0.1:8000/basket/
    name: basket update
    expect: {form-0-quantity: 2}
  - url: http://127.0.0.1:8000/checkout/shipping-address/
    name: shipping address
    expect: {postcode: "75001", line4: Paris}
"""
BASE = "http://127.0.0.1:8000/"


def _post(i: int, t: float, path: str, form: dict, status: int | None = 303, intercepted: bool = False,
          started: float | None = None) -> dict:
    rec = {"t": t, "started": t if started is None else started, "id": str(i), "url": BASE + path, "method": "POST", "headers": {},
           "body": {"kind": "form", "value": form}, "resource_type": "document", "intercepted": intercepted}
    if status is not None:
        rec["response"] = {"status": status, "headers": {}, "mime": "text/html"}
    return rec


def _run(tmp: Path, http: list[dict], caught_t: float | None = 9.0) -> RunDir:
    tmp.mkdir()
    (tmp / "manifest.json").write_text(json.dumps({"id": tmp.name, "task": {"id": "basket"}, "status": "intercepted",
                                                   "t0": 0}))
    (tmp / "http.jsonl").write_text("".join(json.dumps(r) + "\n" for r in http))
    catches = [] if caught_t is None else [{
        "t": caught_t, "rule": "intercept[0]", "rule_index": 0, "url": BASE + "checkout/preview/", "method": "POST",
        "headers": {}, "query": {}, "body": {"csrfmiddlewaretoken": "tok", "action": "place_order"},
        "body_kind": "form", "action": "blocked"}]
    (tmp / "interceptions.jsonl").write_text("".join(json.dumps(c) + "\n" for c in catches))
    actions = [{"t": 1.0, "seq": 1, "type": "click", "target": {"tag": "button", "name": "Update"}},
               {"t": 4.0, "seq": 2, "type": "submit", "target": {"tag": "form", "name": "address"}}]
    (tmp / "actions.jsonl").write_text("".join(json.dumps(a) + "\n" for a in actions))
    return RunDir(tmp)


def _spec(tmp: Path):
    path = tmp / "basket.yaml"
    path.write_text(SPEC)
    return load_spec(path)


def test_the_last_write_before_the_catch_is_what_the_site_holds(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    run = _run(tmp_path / "run", [
        _post(1, 1.0, "basket/", {"form-0-quantity": "3"}),
        _post(2, 2.0, "basket/", {"form-0-quantity": "2"}),                       # the last answered: held
        _post(3, 2.5, "basket/", {"form-0-quantity": "5"}, status=None),          # never answered
        _post(4, 4.0, "checkout/shipping-address/", {"postcode": "75001", "line4": "paris"}),
        _post(5, 10.0, "basket/", {"form-0-quantity": "9"}),                      # after the order: never counts
        _post(6, 9.5, "checkout/shipping-address/", {"postcode": "75001", "line4": "Paris"}, started=8.0),
    ])  # the last: sent before the catch (t 9.0), answered after it: held
    v = judge_payload(run, spec).to_dict()
    assert v["verdict"] == "PASS", v["justification"]
    assert check_verdict(v) == []
    writes = {w["write"]: w for w in v["writes"]}
    assert writes["basket update"]["request"]["id"] == "2" and writes["basket update"]["request"]["line"] == 2
    assert writes["shipping address"]["request"]["id"] == "6"
    assert writes["shipping address"]["step"] == 2 and writes["basket update"]["step"] == 1
    sources = [c["source"] for c in v["conditions"]]
    assert {s["write"] for s in sources} == {None, "basket update", "shipping address"}
    final = [s for s in sources if s["write"] is None]
    assert [s["field"] for s in final] == [None, "action"]  # the endpoint, then the expected field
    assert final[1]["request"]["file"] == "interceptions.jsonl" and final[1]["step"] == 2


def test_a_wrong_value_names_the_field_the_write_and_its_step(tmp_path: Path) -> None:
    run = _run(tmp_path / "run", [_post(1, 1.0, "basket/", {"form-0-quantity": "3"}),
                                  _post(2, 4.0, "checkout/shipping-address/", {"postcode": "75001", "line4": "Paris"})])
    v = judge_payload(run, _spec(tmp_path)).to_dict()
    failed = [c for c in v["conditions"] if not c["met"]]
    assert [c["condition"] for c in failed] == ["Write basket update: field form-0-quantity equals 2"]
    assert failed[0]["detail"] == f'got "3" in POST {BASE}basket/ (http.jsonl line 1, step 1)'
    assert failed[0]["evidence"] == [{"run": "agent", "file": "http.jsonl", "line": 1, "field": "form-0-quantity"}]
    assert v["verdict"] == "FAIL" and "form-0-quantity" in v["justification"]
    assert v["divergence"]["write"] == "basket update" and v["divergence"]["run_step"] == 1


def test_a_write_that_never_happened_is_every_field_missing(tmp_path: Path) -> None:
    run = _run(tmp_path / "run", [
        _post(1, 1.0, "basket/", {"form-0-quantity": "2"}),
        _post(2, 4.0, "checkout/shipping-address/", {"postcode": "75001"}, intercepted=True),  # caught: not held
    ])
    v = judge_payload(run, _spec(tmp_path)).to_dict()
    failed = {c["condition"]: c for c in v["conditions"] if not c["met"]}
    assert sorted(failed) == ["Write shipping address: field line4 equals \"Paris\"",
                              "Write shipping address: field postcode equals \"75001\""]
    assert all("never reached the site before the final request" in c["detail"] for c in failed.values())
    assert next(w for w in v["writes"] if w["write"] == "shipping address")["request"] is None


def test_no_catch_judges_every_write_of_the_run_and_fails_on_the_final_request(tmp_path: Path) -> None:
    run = _run(tmp_path / "run", [_post(1, 1.0, "basket/", {"form-0-quantity": "2"})], caught_t=None)
    v = judge_payload(run, _spec(tmp_path)).to_dict()
    assert v["verdict"] == "FAIL" and v["conditions"][0]["condition"] == "Terminal request sent"
    assert next(w for w in v["writes"] if w["write"] == "basket update")["fields"][0]["met"] is True


def test_a_spec_without_writes_judges_exactly_as_before(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    run = _run(tmp_path / "run", [_post(1, 1.0, "basket/", {"form-0-quantity": "3"})])
    with_writes = judge_payload(run, spec).to_dict()
    without = judge_payload(run, dataclasses.replace(spec, writes=())).to_dict()
    assert "writes" not in without and all("source" not in c for c in without["conditions"])
    assert without["verdict"] == "PASS" and with_writes["verdict"] == "FAIL"
    assert [c["condition"] for c in without["conditions"]] == ["Terminal request sent to a spec endpoint",
                                                               'Field action equals "place_order"']


def test_the_llm_judge_gets_the_held_writes_as_fenced_evidence(tmp_path: Path) -> None:
    from evaluator.llm_judge import task_prompt

    spec = _spec(tmp_path)
    run = _run(tmp_path / "run", [_post(1, 1.0, "basket/", {"form-0-quantity": "3"})])
    run.load_all()
    prompt = task_prompt(spec, run, None)
    assert 'writes[0] (basket update): POST http://127.0.0.1:8000/basket/ must hold {"form-0-quantity": 2}' in prompt
    fenced = prompt.split('<untrusted_run_data run="agent" source="http.jsonl">', 1)[1].split("</untrusted", 1)[0]
    assert f'basket update: http.jsonl line 1 (step 1) POST {BASE}basket/ body={{"form-0-quantity":"3"}}' in fenced
    assert "shipping address: never reached the site before the final request" in fenced
    assert "earlier writes" not in task_prompt(dataclasses.replace(spec, writes=()), run, None)
