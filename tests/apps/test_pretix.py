"""pretix end to end (issue 34: event ticketing, a checkout of several steps): two runs at once of pretix-two-tickets
(2 Regular tickets for Sam Lee and Alex Kim, bank transfer), the right one and one with a wrong second attendee
name, by a scripted buyer in real Chromium. Each: the final "Place binding order" POST (/checkout/confirm/, only a
CSRF token) caught with its payload; the shop's own database (read at the catch and before the reset) holds the two
cart positions with the attendee names (the earlier writes) but no order, and no mail was sent; the shop's access
log saw the cart add and the steps but never the confirm POST. The payload judge (with the spec's `writes:`):
right PASS, wrong name FAIL naming 2-attendee_name_parts_0. Needs `make apps`: a missing install fails loudly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clawrec.apps import corpus
from tests.apps.app_runs import assert_payload_verdict, runs_at_once
from tests.pipeline.helpers import jsonl, manifest

REPO = Path(__file__).resolve().parents[2]
SPEC = REPO / "specs" / "apps" / "pretix" / "pretix-two-tickets.yaml"
AGENT = Path(__file__).resolve().parent / "agent_scripts" / "pretix-two-tickets.py"
RUNS = {"right": [], "guest": ["--guest", "Alex King"]}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    return runs_at_once("pretix", SPEC, AGENT, RUNS, tmp_path_factory.mktemp("pretix"))


def test_the_order_is_caught_and_never_reaches_the_shop(runs):
    run = runs["right"]
    assert manifest(run)["status"] == "intercepted"
    (catch,) = jsonl(run, "interceptions.jsonl")
    assert catch["method"] == "POST" and catch["url"].endswith("/demo/conf2026/checkout/confirm/")
    assert "csrfmiddlewaretoken" in catch["body"] and "email" not in catch["body"]  # the values came earlier
    doc = json.loads((run / "environment.json").read_text())
    assert doc["errors"] == []
    for checks in (doc["checks"], doc["at_catch"]["checks"]):  # the shop's own database, at the catch and at the end
        by_name = {c["name"]: c for c in checks}
        assert by_name["no order placed"]["result"]["count"] == 0
        assert by_name["no confirmation mail sent"]["result"]["count"] == 0
        cart = by_name["two Regular tickets in the cart with the attendee names"]["result"]["records"]
        assert [(r["name"], float(r["price"])) for r in cart] == [("Sam Lee", 120.0), ("Alex Kim", 120.0)], cart
    env = manifest(run)["environment"]
    assert env["reset_s"] < 2 and env["start_s"] < 30, env
    log = (corpus.get("pretix").root / "instances" / env["slot"] / "server.log").read_text()
    assert '"POST /demo/conf2026/cart/add?' in log and '"POST /demo/conf2026/checkout/questions/ HTTP/1.1" 302' in log
    assert "POST /demo/conf2026/checkout/confirm/" not in log  # the shop never saw "Place binding order"


@pytest.mark.parametrize("name,field", [("right", None), ("guest", "2-attendee_name_parts_0")])
def test_the_payload_judge_reads_the_writes(runs, name, field, capsys):
    assert_payload_verdict(runs[name], field, capsys)
