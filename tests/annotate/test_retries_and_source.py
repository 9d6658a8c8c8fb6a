"""`clawrec annotate` on hold-mode runs as `clawrec record` writes them (files built here): a submission the person
blocked, pressed again and blocked again is ONE submission (the last attempt is the terminal request, check-spec
names the earlier one as a repeat); two different blocked submissions stop annotate with a one-line next step;
`--out` is checked before any work; the written spec keeps the task's category, user, files, limits, verify and
secrets (from --from-spec, the manifest's spec, or task.json)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from clawrec.cli import main
from taskspec.load import load_spec

SITE = "http://127.0.0.1:41003/"


def _jsonl(path: Path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def hold_run(folder: Path, payloads: list[dict], spec: Path | None = None) -> Path:
    """A person's run on SITE: the start page, then one POST /api/posts per payload, each blocked by the person on
    the task page (in that order)."""
    folder.mkdir(parents=True)
    task = {"id": "post-status", "start_url": SITE}
    if spec is not None:
        task["spec"] = str(spec)
    (folder / "manifest.json").write_text(json.dumps({"agent": "human", "status": "ok", "task": task}))
    (folder / "task.json").write_text(json.dumps({
        "instruction": "Post my status.", "user": {"name": "Alex Doe", "pin": "[redacted]"},
        "files": [], "limits": {"time_s": 300, "steps": 30}}))
    actions = [{"t": 0.1, "type": "navigate", "url": SITE}]
    http = [{"t": 0.2, "id": "n0", "method": "GET", "url": SITE, "resource_type": "Document", "body": None}]
    catches = []
    for i, body in enumerate(payloads, 1):
        actions.append({"t": 2.0 * i, "type": "click", "target": {"id": "post"}})
        http.append({"t": 2.0 * i + 0.1, "id": f"n{i}", "method": "POST", "url": SITE + "api/posts",
                     "intercepted": "held_blocked", "body": {"kind": "json", "value": body}})
        catches.append({"t": 2.0 * i + 0.5, "method": "POST", "url": SITE + "api/posts", "network_id": f"n{i}",
                        "body": body, "body_kind": "json", "rule": None, "action": "held_blocked",
                        "held": {"id": i, "by": "page"}})
    _jsonl(folder / "actions.jsonl", actions)
    _jsonl(folder / "http.jsonl", http)
    _jsonl(folder / "interceptions.jsonl", catches)
    return folder


POST = {"text": "Ran my first half marathon", "audience": "friends"}


def annotate(capsys, *args) -> tuple[int, str, str]:
    code = main(["annotate", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_submission_blocked_twice_is_one_submission_and_check_spec_names_the_repeat(tmp_path, capsys):
    run = hold_run(tmp_path / "run", [{**POST, "client_token": "a1b2c3d4e5f6a7b8c9"},
                                      {**POST, "client_token": "f9e8d7c6b5a4f3e2d1"}])
    out = tmp_path / "specs" / "post-status.yaml"
    code, stdout, err = annotate(capsys, run, "--out", out)
    assert code == 0, err
    assert "blocked by the person: interceptions.jsonl:2" in stdout.splitlines()[0]
    assert ("the person blocked the same submission 2 times (candidates 1, 2): the last attempt, candidate 1 "
            "(http.jsonl line 3), is the terminal request") in err, err
    assert (f"check-spec: {run} (reference): 2 match(es) -- OK (the same submission repeated: the person blocked it "
            "2 times; the last, http.jsonl:3, is the terminal request)") in err, err
    spec = load_spec(out)
    assert spec.expect == POST and spec.volatile == ("client_token",) and not spec.intercept[0].fields
    code = main(["check-spec", str(out)])
    report = capsys.readouterr().out
    assert code == 0 and "http.jsonl:2 POST" in report and "[the same submission repeated]" in report, report
    assert "http.jsonl:3 POST" in report and report.count("[the same submission repeated]") == 1, report


def test_two_different_blocked_submissions_stop_annotate_with_the_pick_to_give(tmp_path, capsys):
    run = hold_run(tmp_path / "run", [POST, {**POST, "audience": "public"}])
    out = tmp_path / "post-status.yaml"
    code, stdout, err = annotate(capsys, run, "--out", out)
    assert code == 1 and not out.exists(), err
    assert len(stdout.splitlines()) == 2  # the candidates, numbered, are on stdout
    assert err.strip().splitlines() == [
        f"clawrec: {run}: the person blocked 2 different submissions (candidates 1, 2): say which one is the task's "
        f"final submission, e.g. the last one blocked: clawrec annotate {run} --out {out} --force --pick 1"]
    code, _stdout, err = annotate(capsys, run, "--out", out, "--force", "--pick", "1")
    assert code == 1, err  # the earlier, different block is caught by the same rule: the next step says how
    assert err.strip().splitlines()[-1].endswith(
        f"the value of audience tells them apart: clawrec annotate {run} --out {out} --force --pick 1 "
        "--equals audience"), err
    code, _stdout, err = annotate(capsys, run, "--out", out, "--force", "--pick", "1", "--equals", "audience")
    assert code == 0 and "(reference): 1 match(es) -- OK" in err, err


def test_out_is_checked_before_any_work(tmp_path, capsys):
    run = hold_run(tmp_path / "run", [POST])
    (tmp_path / "taken.yaml").write_text("x")
    code, stdout, err = annotate(capsys, run, "--out", tmp_path / "taken.yaml")
    assert code == 2 and stdout == "" and "taken.yaml: already exists (use --force to overwrite)" in err
    code, stdout, err = annotate(capsys, tmp_path / "no-such-run", "--out", tmp_path / "taken.yaml")
    assert code == 2 and "already exists" in err  # the output is checked even before the run is read
    (tmp_path / "file").write_text("x")
    code, stdout, err = annotate(capsys, run, "--out", tmp_path / "file" / "post-status.yaml")
    assert code == 2 and stdout == "" and "is a file, not a folder" in err


SOURCE = """version: 1
id: post-status
category: social
instruction: Post my status.
start_url: "http://127.0.0.1:41003/"
user: {name: Alex Doe, pin: {env: CLAWREC_TEST_PIN}}
files: [files/photo.txt]
limits: {time_s: 240, steps: 25}
verify: [The status is posted to friends]
secrets: [pin]
"""


def test_the_spec_keeps_the_tasks_fields(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CLAWREC_TEST_PIN", "4321")
    src = tmp_path / "src" / "post-status.yaml"
    (src.parent / "files").mkdir(parents=True)
    (src.parent / "files" / "photo.txt").write_text("a photo")
    src.write_text(SOURCE)
    run = hold_run(tmp_path / "run", [POST])
    # --from-spec, the new spec elsewhere: the file is copied beside it (files live in the spec's folder)
    out = tmp_path / "new" / "post-status.yaml"
    code, _stdout, err = annotate(capsys, run, "--out", out, "--from-spec", src)
    assert code == 0, err
    data = yaml.safe_load(out.read_text())
    assert list(data)[:8] == ["version", "id", "category", "instruction", "start_url", "user", "files", "limits"]
    assert (data["category"], data["limits"], data["verify"], data["secrets"]) == (
        "social", {"time_s": 240, "steps": 25}, ["The status is posted to friends"], ["pin"])
    assert data["user"] == {"name": "Alex Doe", "pin": {"env": "CLAWREC_TEST_PIN"}}
    assert data["files"] == ["files/photo.txt"] and (out.parent / "files" / "photo.txt").read_text() == "a photo"
    assert load_spec(out).limits.steps == 25
    # the manifest's spec (the run was recorded from it), a --category given wins; next to the source: no copy
    run2 = hold_run(tmp_path / "run2", [POST], spec=src)
    out = src.parent / "sub" / ".." / "post-status-2.yaml"
    code, _stdout, err = annotate(capsys, run2, "--out", out, "--category", "daily")
    assert code == 0, err
    data = yaml.safe_load(out.read_text())
    assert data["category"] == "daily" and data["verify"] == ["The status is posted to friends"]
    assert data["files"] == ["files/photo.txt"]
    # no spec: what task.json recorded (user without the redacted pin, which the note names; limits)
    out = tmp_path / "bare" / "post-status.yaml"
    code, _stdout, err = annotate(capsys, run, "--out", out)
    assert code == 0, err
    data = yaml.safe_load(out.read_text())
    assert data["user"] == {"name": "Alex Doe"} and data["limits"] == {"time_s": 300, "steps": 30}
    assert "user field(s) pin are redacted in the run's task.json" in out.read_text()
    code, _stdout, err = annotate(capsys, run, "--out", tmp_path / "x.yaml", "--from-spec", tmp_path / "nope.yaml")
    assert code == 2 and "--from-spec" in err and "nope.yaml" in err
