"""django-helpdesk end to end (issue 34: the issue tracker): two runs at once of helpdesk-public-ticket (a customer
files a ticket on the public form with a screenshot attached: one multipart POST, the final submission), the right
one and one with the wrong priority, by a scripted agent in real Chromium. Each: the POST caught with its payload
and the file part named; the desk's own database holds no new ticket, its media folder no attachment, its mail
folder no acknowledgement (read at the catch and before the reset); its access log never saw the POST. The payload
judge: right PASS, wrong priority FAIL naming priority. Needs `make apps`: a missing install fails loudly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clawrec.apps import corpus
from tests.apps.app_runs import assert_payload_verdict, runs_at_once
from tests.pipeline.helpers import jsonl, manifest

REPO = Path(__file__).resolve().parents[2]
SPEC = REPO / "specs" / "apps" / "helpdesk" / "helpdesk-public-ticket.yaml"
AGENT = Path(__file__).resolve().parent / "agent_scripts" / "helpdesk-public-ticket.py"
RUNS = {"right": [], "priority": ["--priority", "3"]}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    return runs_at_once("helpdesk", SPEC, AGENT, RUNS, tmp_path_factory.mktemp("helpdesk"))


def test_the_ticket_is_caught_and_never_reaches_the_desk(runs):
    run = runs["right"]
    assert manifest(run)["status"] == "intercepted"
    (catch,) = jsonl(run, "interceptions.jsonl")
    assert catch["method"] == "POST" and catch["body_kind"] == "multipart"
    assert catch["body"]["title"] == "Contact form Send button does nothing" and catch["body"]["priority"] == "2"
    assert catch["body"]["attachment"]["filename"] == "contact-form.png" and catch["body"]["attachment"]["size"] > 0
    doc = json.loads((run / "environment.json").read_text())
    assert doc["errors"] == []
    for checks in (doc["checks"], doc["at_catch"]["checks"]):
        by_name = {c["name"]: c for c in checks}
        assert by_name["the three seeded tickets are unchanged"]["result"]["count"] == 3
        assert by_name["no ticket filed"]["result"]["count"] == 0
        assert by_name["no attachment stored"]["result"]["count"] == 0
        assert by_name["no acknowledgement mail sent"]["result"]["count"] == 0
    env = manifest(run)["environment"]
    assert env["reset_s"] < 10 and env["start_s"] < 10, env
    log = (corpus.get("helpdesk").root / "instances" / env["slot"] / "server.log").read_text()
    assert '"GET / HTTP/1.1" 200' in log and '"POST / HTTP/1.1"' not in log  # the desk never saw the ticket


@pytest.mark.parametrize("name,field", [("right", None), ("priority", "priority")])
def test_the_payload_judge_names_the_field(runs, name, field, capsys):
    assert_payload_verdict(runs[name], field, capsys)
