"""One meaning of "terminal request" (taskspec/terminal.py) in the payload judge and diagnose: a person's hold-mode
reference (`rule: null`, `action: held_blocked`) is judged by what its recorded request is, via taskspec.match, not by
the rule name the recorder wrote; and a page's own read to the rule's URL is no near miss (a run that sent nothing is
"never submitted", not "wrong value"). On copies of real recorded runs of the demo sites."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

from clawrec.taskfile import expand_sites
from evaluator.diagnose import diagnose
from evaluator.payload_judge import judge_payload
from rundir.reader import RunDir
from taskspec.load import load_spec
from taskspec.payload import Body
from taskspec.terminal import could_be_terminal, rebase, rule_of, terminal

RUNS = Path(__file__).resolve().parents[1] / "fixtures" / "runs" / "real"
TRAVEL = load_spec(RUNS / "specs" / "travel-flight-oneway.yaml")
SHOP = load_spec(RUNS / "specs" / "shop-trail-order.yaml")


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def _write(path: Path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def hold_mode_reference(tmp_path: Path) -> Path:
    """The travel reference as `clawrec record` writes a hold-mode run: no rule caught anything; an earlier POST was
    blocked at the hold timeout; the booking was blocked by the person on the task page twice (the same submission
    pressed again: the last block is the terminal one)."""
    ref = tmp_path / "hold-ref"
    shutil.copytree(RUNS / "travel" / "reference", ref)
    (booking,) = _lines(ref / "interceptions.jsonl")
    held = {**booking, "rule": None, "rule_index": None, "action": "held_blocked"}
    other = {**held, "t": 2.0, "url": booking["url"].replace("bookings", "feedback"), "body": {"stars": 5},
             "network_id": "1.1", "held": {"id": 1, "by": "timeout"}}
    _write(ref / "interceptions.jsonl", [other, {**held, "held": {"id": 2, "by": "page"}},
                                         {**held, "t": held["t"] + 1, "held": {"id": 3, "by": "page"}}])
    http = _lines(ref / "http.jsonl")
    for rec in http:
        if rec.get("intercepted"):
            rec["intercepted"] = "held_blocked"
    _write(ref / "http.jsonl", http)
    m = json.loads((ref / "manifest.json").read_text())
    m["agent"] = "human"
    (ref / "manifest.json").write_text(json.dumps(m))
    return ref


def test_a_hold_mode_reference_judges_a_correct_run_pass_and_names_no_endpoint_problem(tmp_path):
    ref = hold_mode_reference(tmp_path)
    run = RunDir(RUNS / "travel" / "r01-correct")
    # the spec as written, and as the pipeline and `clawrec judge` give it: filled for the judged run's ports
    for spec in (TRAVEL, expand_sites(TRAVEL, run.manifest["sites"])):
        v = judge_payload(RunDir(run.path), spec, RunDir(ref))
        assert v.verdict == "PASS", v.justification
        endpoint = next(c for c in v.conditions if c.condition == "Terminal request sent to the reference's endpoint")
        assert endpoint.met and endpoint.evidence[1].line == 3, endpoint  # the person's last block
    d = diagnose(RunDir(run.path), RunDir(ref), TRAVEL, write=False)
    assert d.category is None and "endpoint" not in d.headline(), d.headline()
    # a run with one wrong field is FAIL naming it, and its diagnosis is a wrong value, not a wrong endpoint
    d = diagnose(RunDir(RUNS / "travel" / "r04-wrong-name"), RunDir(ref), TRAVEL, write=False)
    assert d.category == "wrong_value" and "passengers.0.first_name" in d.headline(), d.headline()


def test_the_rule_is_decided_by_the_matcher_across_runs_of_other_ports():
    ref, run = RunDir(RUNS / "travel" / "reference"), RunDir(RUNS / "travel" / "r01-correct")
    (catch,) = ref.interceptions.records
    assert rebase(catch.url, ref.manifest["sites"], run.manifest["sites"]).startswith(run.manifest["sites"]["travel"])
    assert rule_of(TRAVEL.intercept, catch, ref.manifest["sites"]) is TRAVEL.intercept[0]
    for_run = expand_sites(TRAVEL, run.manifest["sites"])  # filled with the OTHER run's ports
    assert rule_of(for_run.intercept, catch, ref.manifest["sites"]) is None
    assert rule_of(for_run.intercept, catch, ref.manifest["sites"], run.manifest["sites"]) is for_run.intercept[0]
    wrong = {"url": catch.url, "method": "POST", "body": {**catch.body, "cabin": "business"}, "body_kind": "json",
             "action": "held_blocked", "held": {"by": "terminal"}}
    assert rule_of(TRAVEL.intercept, wrong, ref.manifest["sites"]) is None  # `equals` cabin: the matcher says no
    assert rule_of(TRAVEL.intercept, wrong, ref.manifest["sites"], endpoint=True) is TRAVEL.intercept[0]
    assert terminal([catch, wrong], TRAVEL.intercept, ref.manifest["sites"]) == (catch, TRAVEL.intercept[0])


def test_a_page_read_to_the_rule_url_is_not_a_submission(tmp_path):
    """The shop's own batched GraphQL reads on load go to the rule's URL: without a reference (a bench task) a run
    that never placed the order is "never submitted", not "wrong value"."""
    d = diagnose(RunDir(RUNS / "shop" / "s04-gives-up"), None, SHOP, write=False)
    assert d.category == "never_submitted", d.headline()
    v = judge_payload(RunDir(RUNS / "shop" / "s04-gives-up"), SHOP, None)
    assert "was sent (http.jsonl line" not in v.conditions[0].detail, v.conditions[0].detail
    rule = SHOP.intercept[0]
    url = "http://127.0.0.1:9/graphql"
    rule = dataclasses.replace(rule, url=url)
    read = [{"operationName": "Products", "query": "query Products { products { id } }", "variables": {}}]
    cart = [{"operationName": "AddToCart", "query": "mutation AddToCart($i: X) { a }", "variables": {"input": {}}}]
    order = [{"operationName": "PlaceOrder", "query": "mutation PlaceOrder($input: X) { a }",
              "variables": {"input": {"email": "a@b.c"}}}]
    assert not could_be_terminal(rule, "POST", url, Body("json", read))
    assert not could_be_terminal(rule, "POST", url, Body("json", cart))  # another operation: not this submission
    assert could_be_terminal(rule, "POST", url, Body("json", order))     # PlaceOrder without payment: a near miss
    assert not could_be_terminal(rule, "GET", url, Body("empty", None))


def test_the_llm_judge_tool_names_the_terminal_request_of_a_hold_mode_reference(tmp_path):
    from evaluator.judge_tools import RunTools

    ref = hold_mode_reference(tmp_path)
    content, err = RunTools(RunDir(RUNS / "travel" / "r01-correct"), RunDir(ref)).call("get_payloads",
                                                                                       {"run": "reference"})
    lines = [ln for ln in content[0]["text"].splitlines() if ln.startswith("line ")]
    assert not err and len(lines) == 3
    assert "(held: blocked by timeout)" in lines[0] and "terminal" not in lines[0]
    assert "(held: blocked by page) [the run's terminal request] body=" in lines[2], lines[2]
