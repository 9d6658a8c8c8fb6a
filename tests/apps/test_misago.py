"""Misago end to end (issue 34: the forum with a React front end on a JSON API): two runs at once of
misago-reply-photo (alex signs in, replies in "Best trails near the lake?" with a photo uploaded in the editor),
the right one and one with the wrong text, by a scripted agent in real Chromium. Each: the reply's JSON POST caught
with its payload, nested attachments list included; the forum's own PostgreSQL (read through psql) holds no new
post and the photo's attachment row with no post (the earlier write); its request log saw the upload, never the
reply. The payload judge: right PASS, wrong text FAIL naming post. And the reset without a restart: a write to the
database and to media/ gone after POST /reset while PostgreSQL and runserver keep running (the database re-created
from its seeded template). Needs `make apps`: a missing install fails."""

from __future__ import annotations

import json
import subprocess
import urllib.request
from pathlib import Path

import pytest

from clawrec.apps import corpus
from clawrec.apps.checks import _pg_sql
from clawrec.apps.instance import AppInstance
from tests.apps.app_runs import assert_payload_verdict, runs_at_once
from tests.pipeline.helpers import jsonl, manifest

REPO = Path(__file__).resolve().parents[2]
SPEC = REPO / "specs" / "apps" / "misago" / "misago-reply-photo.yaml"
AGENT = Path(__file__).resolve().parent / "agent_scripts" / "misago-reply-photo.py"
RUNS = {"right": [], "text": ["--text", "Went up the south loop on Sunday. Photo attached."]}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    return runs_at_once("misago", SPEC, AGENT, RUNS, tmp_path_factory.mktemp("misago"))


def test_the_reply_is_caught_and_never_reaches_the_forum(runs):
    run = runs["right"]
    assert manifest(run)["status"] == "intercepted"
    (catch,) = jsonl(run, "interceptions.jsonl")
    assert catch["method"] == "POST" and catch["url"].endswith("/api/threads/2/posts/")
    assert catch["body"]["post"].startswith("Went up the north loop on Saturday")
    assert catch["body"]["attachments"] == [1]  # the photo uploaded before: its id, nested in the JSON
    doc = json.loads((run / "environment.json").read_text())
    assert doc["errors"] == []
    for checks in (doc["checks"], doc["at_catch"]["checks"]):
        by_name = {c["name"]: c for c in checks}
        assert all("error" not in c for c in checks), checks
        assert by_name["no reply posted"]["result"]["count"] == 0
        assert by_name["the thread keeps its three posts"]["result"]["count"] == 3
        assert by_name["the photo is uploaded, attached to no post (the earlier write)"]["result"]["count"] == 1
    env = manifest(run)["environment"]
    assert env["start_s"] < 20 and env["reset_s"] < 20, env  # a reset re-creates the database (~0.2 s idle)
    log = (corpus.get("misago").root / "instances" / env["slot"] / "server.log").read_text()
    assert '"POST /api/attachments/ HTTP/1.1" 200' in log and "POST /api/threads/2/posts/" not in log


@pytest.mark.parametrize("name,field", [("right", None), ("text", "post")])
def test_the_payload_judge_names_the_field(runs, name, field, capsys):
    assert_payload_verdict(runs[name], field, capsys)


def test_a_reset_brings_back_the_seeded_forum_without_a_restart():
    app = corpus.get("misago")
    assert app.installed(), "misago is not installed in .tools/apps: run `make apps`"
    inst = AppInstance(app)
    try:
        inst.start()
        pg = inst.data / "pg"
        postmaster = (pg / "postmaster.pid").read_text().split()[0]
        port = (pg / "postmaster.pid").read_text().splitlines()[3].strip()
        subprocess.run(["psql", "-X", "-q", "-h", "127.0.0.1", "-p", port, "-U", "misago", "-d", "misago", "-c",
                        "UPDATE misago_threads_thread SET title = 'A write' WHERE id = 3"], check=True, timeout=30)
        (inst.data / "media" / "a-write.txt").write_text("x")
        threads = json.loads(urllib.request.urlopen(inst.url + "api/threads/", timeout=30).read())["results"]
        assert "A write" in [t["title"] for t in threads]  # runserver sees it
        reset_s = inst.reset()
        assert _pg_sql(pg, "SELECT COUNT(*) FROM misago_threads_thread WHERE title = 'A write'")["count"] == 0
        assert _pg_sql(pg, "SELECT COUNT(*) FROM misago_threads_thread")["count"] == 3
        assert not (inst.data / "media" / "a-write.txt").exists()
        threads = json.loads(urllib.request.urlopen(inst.url + "api/threads/", timeout=30).read())["results"]
        assert "Next meetup: pick a date" in [t["title"] for t in threads]  # the same runserver, a new connection
        assert (pg / "postmaster.pid").read_text().split()[0] == postmaster  # PostgreSQL kept running
        assert (inst.slot / "server.log").read_text().count("Starting development server") == 1  # and runserver
        assert reset_s < 10, reset_s  # ~0.2 s idle; loose: 2 cores shared by the whole suite
    finally:
        inst.stop()
