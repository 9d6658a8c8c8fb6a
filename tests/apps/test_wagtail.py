"""Wagtail end to end (issue 34: a CMS's edit-and-publish): two runs at once of wagtail-edit-publish (an editor
retitles a blog post, saves a draft, then publishes from the same edit form), the right one and one with a wrong
title, by a scripted agent in real Chromium. The trap: "Save draft" and "Publish" POST to the same URL; only Publish
carries `action-publish`, which the rule pins. Each right run: the publish POST caught with its payload (the
Draft.js body compared inside its JSON); the site's own database holds the draft (one more revision with the new
title, has_unpublished_changes=1) and the live title unchanged (read at the catch and before the reset); its
access log saw the draft POST (the publish shares its URL: the live title says it never arrived). The payload judge: right PASS, wrong title FAIL naming
title. Needs `make apps`: a missing install fails loudly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clawrec.apps import corpus
from tests.apps.app_runs import assert_payload_verdict, runs_at_once
from tests.pipeline.helpers import jsonl, manifest

REPO = Path(__file__).resolve().parents[2]
SPEC = REPO / "specs" / "apps" / "wagtail" / "wagtail-edit-publish.yaml"
AGENT = Path(__file__).resolve().parent / "agent_scripts" / "wagtail-edit-publish.py"
RUNS = {"right": [], "title": ["--title", "A winter leak soup"]}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    return runs_at_once("wagtail", SPEC, AGENT, RUNS, tmp_path_factory.mktemp("wagtail"))


def test_the_publish_is_caught_and_only_the_draft_reaches_the_site(runs):
    run = runs["right"]
    assert manifest(run)["status"] == "intercepted"
    (catch,) = jsonl(run, "interceptions.jsonl")
    assert catch["method"] == "POST" and catch["url"].endswith("/admin/pages/7/edit/")
    body = catch["body"]
    assert body["action-publish"] == "action-publish" and body["title"] == "A winter leek soup"
    assert json.loads(body["body"])["blocks"][0]["text"] == "Leeks, potatoes and patience."  # Draft.js JSON
    doc = json.loads((run / "environment.json").read_text())
    assert doc["errors"] == []
    for checks in (doc["checks"], doc["at_catch"]["checks"]):
        by_name = {c["name"]: c for c in checks}
        assert by_name["no retitled post published"]["result"]["count"] == 0
        live = by_name["the live post keeps its title and has the unpublished draft"]["result"]["records"]
        assert [(r["title"], r["has_unpublished_changes"]) for r in live] == [("A winter soup", 1)], live
        assert by_name["the draft revision saved before publishing"]["result"]["count"] == 1
    env = manifest(run)["environment"]
    assert env["reset_s"] < 10 and env["start_s"] < 30, env  # Wagtail's start: 4-6 s idle, 13 s seen on 2 busy cores
    log = (corpus.get("wagtail").root / "instances" / env["slot"] / "server.log").read_text()
    # the draft reached the site (the publish shares its URL: the live title above says it never did; the slot's
    # log spans earlier runs too, so it cannot be counted)
    assert '"POST /admin/pages/7/edit/ HTTP/1.1" 302' in log


def test_the_payload_judge_passes_the_right_run(runs, capsys):
    assert_payload_verdict(runs["right"], None, capsys)


def test_the_payload_judge_fails_the_wrong_title_on_the_draft_and_the_publish(runs, capsys):
    """The wrong title is in both submissions of the one form: the draft (a write) and the publish (the final)."""
    from clawrec.cli import main

    assert main(["judge", str(runs["title"])]) == 0
    verdict = json.loads((runs["title"] / "verdict.json").read_text())
    failed = [c["condition"] for c in verdict["conditions"] if not c["met"]]
    assert verdict["verdict"] == "FAIL" and "title" in capsys.readouterr().out
    assert failed == ['Field title equals "A winter leek soup"',
                      'Write POST /admin/pages/*/edit/: field title equals "A winter leek soup"'], failed
