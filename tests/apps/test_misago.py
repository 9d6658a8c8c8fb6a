"""Misago end to end (issue 34: the forum with a React front end on a JSON API): two runs at once of
misago-reply-photo (alex signs in, replies in "Best trails near the lake?" with a photo uploaded in the editor),
the right one and one with the wrong text, by a scripted agent in real Chromium. Each: the reply's JSON POST caught
with its payload, nested attachments list included; the forum's own PostgreSQL (read through psql) holds no new
post and the photo's attachment row with no post (the earlier write); its request log saw the upload, never the
reply. The payload judge: right PASS, wrong text FAIL naming post. Needs `make apps`: a missing install fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clawrec.apps import corpus
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
    assert env["start_s"] < 20 and env["reset_s"] < 20, env  # a reset restarts PostgreSQL and Django (~5 s)
    log = (corpus.get("misago").root / "instances" / env["slot"] / "server.log").read_text()
    assert '"POST /api/attachments/ HTTP/1.1" 200' in log and "POST /api/threads/2/posts/" not in log


@pytest.mark.parametrize("name,field", [("right", None), ("text", "post")])
def test_the_payload_judge_names_the_field(runs, name, field, capsys):
    assert_payload_verdict(runs[name], field, capsys)
