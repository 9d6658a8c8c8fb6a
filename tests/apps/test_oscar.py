"""django-oscar end to end (issue 34; issue 33's held-out real shop): three runs of the guest checkout at once (the
app's pool: three instances, three ports, three copies of the snapshot) by a scripted agent in real Chromium: the
right one, one with a wrong quantity, one with a wrong postcode. Each: the final "Place order" POST caught with its
payload; the shop's own database (read by the environment at the catch and before the reset) holds the basket line
and the address but no order and no mail; the shop's own access log never saw the Place-order POST. The payload
judge (with the spec's `writes:`): right PASS; wrong quantity FAIL naming form-0-quantity, wrong postcode FAIL
naming postcode. Needs `make apps` (make test depends on it): a missing install fails loudly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clawrec.apps import corpus
from clawrec.cli import main
from tests.apps.app_runs import assert_payload_verdict, runs_at_once
from tests.pipeline.helpers import jsonl, manifest

REPO = Path(__file__).resolve().parents[2]
SPEC = REPO / "specs" / "apps" / "oscar" / "oscar-guest-checkout.yaml"
AGENT = Path(__file__).resolve().parent / "agent_scripts" / "oscar_checkout.py"
RUNS = {"right": [], "quantity": ["--quantity", "3"], "postcode": ["--postcode", "SW1A 2AA"]}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    return runs_at_once("oscar", SPEC, AGENT, RUNS, tmp_path_factory.mktemp("oscar"))


def _checks(run: Path) -> tuple[dict, dict]:
    doc = json.loads((run / "environment.json").read_text())
    return ({c["name"]: c for c in doc["checks"]}, {c["name"]: c for c in doc["at_catch"]["checks"]})


def test_each_instance_is_its_own(runs):
    envs = [manifest(r)["environment"] for r in runs.values()]
    assert len({e["url"] for e in envs}) == 3 and len({e["slot"] for e in envs}) == 3
    assert all(e["reset_s"] < 2 and e["start_s"] < 10 for e in envs), envs
    assert all(manifest(r)["sites"] == {"oscar": manifest(r)["environment"]["url"]} for r in runs.values())


def test_the_order_is_caught_and_never_reaches_the_shop(runs):
    run = runs["right"]
    assert manifest(run)["status"] == "intercepted"
    (catch,) = jsonl(run, "interceptions.jsonl")
    assert catch["url"].endswith("/checkout/preview/") and catch["method"] == "POST"
    assert catch["body"]["action"] == "place_order" and "csrfmiddlewaretoken" in catch["body"]
    end, at_catch = _checks(run)
    for checks in (end, at_catch):  # the shop's own database, at the catch and before the reset
        assert checks["no order placed"]["result"]["count"] == 0
        assert checks["no confirmation mail sent"]["result"]["count"] == 0
        assert checks["basket line holds the quantity"]["result"]["records"] == [{"quantity": 2}]
        assert checks["shipping address in the checkout session"]["result"]["records"] == [
            {"postcode": "SW1A 1AA", "email": "sam@example.org"}]
    slot = manifest(run)["environment"]["slot"]
    log = (corpus.get("oscar").root / "instances" / slot / "server.log").read_text()
    assert '"POST /checkout/shipping-address/ HTTP/1.1" 302' in log and '"POST /basket/ HTTP/1.1" 200' in log
    assert "POST /checkout/preview/" not in log  # the shop never saw "Place order"


@pytest.mark.parametrize("name,field", [("right", None), ("quantity", "form-0-quantity"), ("postcode", "postcode")])
def test_the_payload_judge_reads_the_writes(runs, name, field, capsys):
    assert_payload_verdict(runs[name], field, capsys)


def test_the_state_judge_names_the_wrong_value(runs, capsys):
    assert main(["judge", str(runs["right"]), "--judge", "state"]) == 0
    assert json.loads((runs["right"] / "verdict.json").read_text())["verdict"] == "PASS"
    assert main(["judge", str(runs["postcode"]), "--judge", "state"]) == 0
    verdict = json.loads((runs["postcode"] / "verdict.json").read_text())
    assert verdict["verdict"] == "FAIL" and 'postcode = "SW1A 2AA"' in verdict["justification"]
