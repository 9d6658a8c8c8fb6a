"""A hold-mode reference on a demo site judges right (issue 20, items 1-2). A scripted person (tests/record/person.py:
Playwright attached to the recorded browser over CDP, answers on the task page) records Murmur's status post with
`clawrec record` on a spec with no rule: the post is held and blocked, the person presses Post again (blocked again),
then posts a different text (blocked). Cut at each block (the run as if Done had been pressed then), that one
recording gives the three references: blocked once, retried once, two different submissions.

Once: annotate → check-spec OK → `clawrec run --agent replay` (the demo sites on other ports) PASS, its diagnosis
naming no endpoint problem; a replay with one wrong field FAIL naming it. Retried once: annotate exits 0 with a spec
check-spec accepts. Two different: annotate exits 1 with a one-line next step. The sites' own log is the truth:
no post ever reached Murmur."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from clawrec.cli import main
from recorder.display import start_display
from taskspec.load import load_spec
from tests.pipeline.helpers import jsonl
from tests.record.helpers import REPO, StderrLines, clawrec, cut_run, wait_for
from tests.record.person import TaskPage, browser_cdp_url

MARK = "(hold reference)"  # in every text: this module's posts, told from other tests' on the shared sites
TEXT = f"Ran my first trail half marathon today: 2:04 at Barton Creek! {MARK}"
OTHER = f"Ran my first trail half marathon today! {MARK}"
WRONG = f"Ran my first trail marathon today: 2:04 at Barton Creek! {MARK}"
SOURCE = """version: 1
id: social-post
category: social
instruction: 'On Murmur, publish this status update, visible to Friends only: "{text}"'
start_url: "{{sites.social}}"
user: {{name: Alex Doe, handle: alex}}
limits: {{time_s: 300, steps: 40}}
verify: ['The status text is exactly "{text}"', The audience is Friends]
"""


def _posts(server) -> list[dict]:
    """The site's own log: this module's status posts that reached Murmur."""
    return [r for r in server.records() if r["site"] == "social" and r["method"] == "POST"
            and r["path"] == "/api/posts" and MARK in (r.get("body") or "")]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """(folder, source spec, {once, retried, twice: run dirs}, record's site URLs)."""
    from playwright.sync_api import sync_playwright
    from sites.server import serve_sites

    folder = tmp_path_factory.mktemp("hold-reference")
    source = folder / "src" / "social-post.yaml"
    source.parent.mkdir()
    source.write_text(SOURCE.format(text=TEXT))
    run = folder / "recorded"
    display = start_display()
    try:
        with serve_sites(sites=["social"]) as server:
            env = {**os.environ, "CLAWREC_SITES": json.dumps(server.urls)}
            proc = subprocess.Popen([sys.executable, "-m", "clawrec.cli", "record", str(source), "--display",
                                     display.name, "--no-video", "--run-dir", str(run)], cwd=REPO, env=env,
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            err = StderrLines(proc)
            try:
                task_page = TaskPage(err.wait(r"task page and controls .*: (\S+)", timeout=120).group(1))
                task_page.answer(lambda held: "block" if held["url"].endswith("/api/posts") else "allow")
                with sync_playwright() as pw:
                    browser = pw.chromium.connect_over_cdp(browser_cdp_url(proc.pid))
                    page = wait_for(lambda: next((p for c in browser.contexts for p in c.pages
                                                  if p.url.startswith(server.urls["social"])), None), "the start page")
                    page.bring_to_front()
                    box = page.get_by_label("What's on your mind, Alex?")
                    for n, text in enumerate([TEXT, TEXT, OTHER], 1):
                        if n != 2:  # the retry: the person presses Post again, the text is still there
                            box.fill(text)
                            page.get_by_label("Audience").select_option("friends")
                        page.get_by_role("button", name="Post", exact=True).click()
                        wait_for(lambda: task_page.blocked() == n, f"block {n} on the task page")
                        wait_for(lambda: len(jsonl(run, "interceptions.jsonl")) == n, f"block {n} recorded")
                        page.locator("#composer-error:not([hidden])").wait_for()  # the page says it failed
                task_page.done()
                proc.communicate(timeout=120)
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.communicate()
            assert proc.returncode == 0, "\n".join(err.lines)
            assert _posts(server) == []  # held and blocked: nothing reached Murmur
            urls = dict(server.urls)
    finally:
        display.stop()
    blocks = jsonl(run, "interceptions.jsonl")
    assert [(b["rule"], b["action"], b["held"]["by"], b["body"]) for b in blocks] == [
        (None, "held_blocked", "page", {"text": t, "audience": "friends"}) for t in (TEXT, TEXT, OTHER)]
    # each block's request is in http.jsonl once it failed (after the decision): cut there, before the next click
    done_t = {r.get("id"): r["t"] for r in jsonl(run, "http.jsonl") if r.get("intercepted") == "held_blocked"}
    refs = {"once": cut_run(run, folder / "once", done_t[blocks[0]["network_id"]]),
            "retried": cut_run(run, folder / "retried", done_t[blocks[1]["network_id"]]), "twice": run}
    return folder, source, refs, urls


def annotate(capsys, *args) -> tuple[int, str, str]:
    code = main(["annotate", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_once_annotate_check_spec_replay_pass_wrong_field_fail(recorded, sites, capsys, tmp_path):
    folder, source, refs, urls = recorded
    out = folder / "specs" / "social-post.yaml"
    code, stdout, err = annotate(capsys, refs["once"], "--out", out, "--from-spec", source)
    assert code == 0, err
    assert f"check-spec: {refs['once']} (reference): 1 match(es) -- OK" in err, err
    spec = load_spec(out)
    assert spec.intercept[0].url == "{sites.social}api/posts" and spec.expect == {"text": TEXT, "audience": "friends"}
    assert (spec.category, spec.limits.time_s, len(spec.verify)) == ("social", 300, 2)
    assert main(["check-spec", str(out)]) == 0, capsys.readouterr()
    capsys.readouterr()

    env = {**os.environ, "CLAWREC_SITES": json.dumps(sites.urls)}  # the demo sites again, on other ports
    assert sites.urls["social"] != urls["social"]
    replay = tmp_path / "replay"
    res = clawrec("run", str(out), "--agent", "replay", "--from", str(refs["once"]), "--headless",
                  "--run-dir", str(replay), env=env)
    assert res.returncode == 0, res.stderr
    verdict = json.loads((replay / "verdict.json").read_text())
    assert verdict["verdict"] == "PASS", verdict["justification"]
    assert "verdict: PASS (payload judge)" in res.stdout
    code = main(["diagnose", str(replay), "--spec", str(out)])
    said = capsys.readouterr().out
    assert code == 0 and said.startswith("passed:") and "endpoint" not in said, said

    # one wrong field: the person's typing replayed with another text
    wrong_from = tmp_path / "wrong-from"
    shutil.copytree(refs["once"], wrong_from)
    actions = (wrong_from / "actions.jsonl").read_text()
    assert TEXT in actions
    (wrong_from / "actions.jsonl").write_text(actions.replace(TEXT, WRONG))
    wrong = tmp_path / "wrong"
    res = clawrec("run", str(out), "--agent", "replay", "--from", str(wrong_from), "--headless",
                  "--run-dir", str(wrong), env=env)
    assert res.returncode == 0, res.stderr
    verdict = json.loads((wrong / "verdict.json").read_text())
    failed = [c for c in verdict["conditions"] if not c["met"]]
    assert verdict["verdict"] == "FAIL" and [c["condition"] for c in failed] == ["Field text equals "
                                                                                 + json.dumps(TEXT)], failed
    assert failed[0]["detail"] == f"got {json.dumps(WRONG)}"
    assert _posts(sites) == []  # both runs' posts were caught: neither reached Murmur


def test_retried_once_is_one_submission(recorded, capsys):
    folder, source, refs, _urls = recorded
    out = folder / "specs" / "retried" / "social-post.yaml"
    code, stdout, err = annotate(capsys, refs["retried"], "--out", out, "--from-spec", source)
    assert code == 0, err
    assert "the person blocked the same submission 2 times (candidates 1, 2)" in err, err
    assert main(["check-spec", str(out)]) == 0
    report = capsys.readouterr().out
    assert "2 match(es) -- OK (the same submission repeated" in report and "[the same submission repeated]" in report


def test_two_different_blocked_submissions_stop_annotate(recorded, capsys):
    folder, source, refs, _urls = recorded
    out = folder / "specs" / "twice" / "social-post.yaml"
    code, stdout, err = annotate(capsys, refs["twice"], "--out", out, "--from-spec", source)
    assert code == 1 and not out.exists(), err
    (line,) = err.strip().splitlines()
    assert line.startswith(f"clawrec: {refs['twice']}: the person blocked 2 different submissions (candidates 1, 2, 3): ")
    assert line.endswith(f"clawrec annotate {refs['twice']} --out {out} --force --pick 1"), line
    assert "[text, audience]  (blocked by the person: interceptions.jsonl:3)" in stdout.splitlines()[0], stdout
