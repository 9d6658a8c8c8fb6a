"""Roundcube webmail end to end (issue 34; the first app of kind "command": PHP's built-in server, Dovecot IMAP and an
SMTP server on loopback, started by apps/_command/serve.py): two runs of webmail-compose-send at once (two instances,
two ports, two copies of the snapshot) by a scripted agent in real Chromium, the right one and one with a wrong
subject. Each: the final send POST (_action=send, not a draft) caught with its payload; the SMTP server received
nothing and Sent holds no copy (read by the environment at the catch and before the reset); Roundcube's access log
(PHP's built-in server) never saw the send POST. The payload judge: right PASS, wrong subject FAIL naming _subject.
Needs `clawrec apps install webmail` (make apps): a missing install fails loudly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clawrec.apps import corpus
from tests.apps.app_runs import assert_payload_verdict, runs_at_once
from tests.pipeline.helpers import jsonl, manifest

REPO = Path(__file__).resolve().parents[2]
SPEC = REPO / "specs" / "apps" / "webmail" / "webmail-compose-send.yaml"
AGENT = Path(__file__).resolve().parent / "agent_scripts" / "webmail-compose-send.py"
RUNS = {"right": [], "subject": ["--subject", "Section 4 comments"]}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    return runs_at_once("webmail", SPEC, AGENT, RUNS, tmp_path_factory.mktemp("webmail"))


def test_each_instance_is_its_own(runs):
    envs = [manifest(r)["environment"] for r in runs.values()]
    assert len({e["url"] for e in envs}) == 2 and len({e["slot"] for e in envs}) == 2
    # reset = stop, copy, start the three processes: 0.3-0.6 s idle, 1.4-2.3 s at a load of ~20, 3.5 s at ~140
    assert all(e["reset_s"] < 10 and e["start_s"] < 10 for e in envs), envs


def test_the_send_is_caught_and_never_reaches_the_mail_server(runs):
    run = runs["right"]
    assert manifest(run)["status"] == "intercepted"
    (catch,) = jsonl(run, "interceptions.jsonl")
    assert catch["method"] == "POST" and "_task=mail" in catch["url"]
    assert catch["body"]["_action"] == "send" and catch["body"]["_draft"] == ""
    assert catch["body"]["_subject"] == "Section 3 comments"
    doc = json.loads((run / "environment.json").read_text())
    for checks in (doc["checks"], doc["at_catch"]["checks"]):
        by_name = {c["name"]: c for c in checks}
        assert by_name["no mail reached the SMTP server"]["result"]["count"] == 0
        assert by_name["no copy in Sent"]["result"]["count"] == 0
        assert by_name["the user logged in (Roundcube's own last_login)"]["result"]["count"] == 1
    slot = manifest(run)["environment"]["slot"]
    log = (corpus.get("webmail").root / "instances" / slot / "server.log").read_text()
    assert "POST /?_task=login" in log  # the login reached Roundcube
    assert "_action=compose" in log
    assert "POST /?_task=mail&_unlock=" not in log  # the send POST never did


@pytest.mark.parametrize("name,field", [("right", None), ("subject", "_subject")])
def test_the_payload_judge_names_the_field(runs, name, field, capsys):
    assert_payload_verdict(runs[name], field, capsys)
