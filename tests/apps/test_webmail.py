"""Roundcube webmail end to end (issue 34; the first app of kind "command": PHP's built-in server, Dovecot IMAP and an
SMTP server on loopback, started by apps/_command/serve.py): two runs of webmail-compose-send at once (two instances,
two ports, two copies of the snapshot) by a scripted agent in real Chromium, the right one and one with a wrong
subject. Each: the final send POST (_action=send, not a draft) caught with its payload; the SMTP server received
nothing and Sent holds no copy (read by the environment at the catch and before the reset); Roundcube's access log
(PHP's built-in server) never saw the send POST. The payload judge: right PASS, wrong subject FAIL naming _subject.
And a reset with every process kept running: a mail to the SMTP server, a message appended over IMAP and a Roundcube
row gone after POST /reset, the same Dovecot serving the seeded maildir.
Needs `clawrec apps install webmail` (make apps): a missing install fails loudly."""

from __future__ import annotations

import imaplib
import json
import smtplib
import sqlite3
from pathlib import Path

import pytest

from clawrec.apps import corpus
from clawrec.apps.instance import AppInstance
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
    # reset = the data copied back, the maildir moved in, the three processes kept: ~0.15 s idle
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


def _sink_port(data: Path) -> int:
    """The instance's SMTP server port: from its command line (smtp_sink.py --port N --dir DATA/mail)."""
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = cmdline.read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        if "smtp_sink.py" in argv and f"{data}/mail" in argv:
            return int(argv[argv.index("--port") + 1])
    raise AssertionError(f"no SMTP server for {data}")


def _inbox(port: int) -> int:
    with imaplib.IMAP4("127.0.0.1", port, timeout=30) as imap:
        imap.login("alex", "mailpass-alex-42")
        return int(imap.select("INBOX")[1][0])


def test_a_reset_brings_back_the_seeded_mailbox_without_a_restart():
    app = corpus.get("webmail")
    assert app.installed(), "webmail is not installed in .tools/apps: run `make apps`"
    inst = AppInstance(app)
    try:
        inst.start()
        conf = (inst.data / "dovecot.conf").read_text()
        imap_port = int(conf.split("inet_listener imap {")[1].split("port = ")[1].split()[0])
        seeded = _inbox(imap_port)
        with smtplib.SMTP("127.0.0.1", _sink_port(inst.data), timeout=30) as smtp:
            smtp.sendmail("alex@example.test", ["sam@example.test"], "Subject: a write\r\n\r\nx\r\n")
        assert len(list((inst.data / "mail").glob("*.eml"))) == 1
        with imaplib.IMAP4("127.0.0.1", imap_port, timeout=30) as imap:
            imap.login("alex", "mailpass-alex-42")
            imap.append("INBOX", "", None, b"Subject: a write\r\n\r\nx\r\n")
        assert _inbox(imap_port) == seeded + 1
        with sqlite3.connect(inst.database) as db:
            assert db.execute("UPDATE users SET language = 'de_DE'").rowcount == 1
        dovecot = (inst.data / "dovecot-run" / "master.pid").read_text().strip()
        inst.reset()
        assert _inbox(imap_port) == seeded  # the same Dovecot, the snapshot's maildir
        assert (inst.data / "dovecot-run" / "master.pid").read_text().strip() == dovecot
        with sqlite3.connect(inst.database) as db:
            assert db.execute("SELECT language FROM users").fetchall() == [("en_US",)]
        assert list((inst.data / "mail").glob("*.eml")) == []
        with smtplib.SMTP("127.0.0.1", _sink_port(inst.data), timeout=30) as smtp:  # the kept sink writes on
            smtp.sendmail("alex@example.test", ["sam@example.test"], "Subject: after\r\n\r\nx\r\n")
        assert len(list((inst.data / "mail").glob("*.eml"))) == 1
    finally:
        inst.stop()
