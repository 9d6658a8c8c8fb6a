"""`clawrec annotate` on a hold-mode run built from files as `clawrec record` writes them: the request the person
blocked last is the top candidate (a GET form submission: its query is its payload), ahead of a later one blocked
at the hold timeout and of a POST that went out after the last click; the rule keeps it apart from the start page
on the same URL by its query field, plumbing stays out of `expect`, and check-spec accepts the spec on that run."""

from __future__ import annotations

import json
from pathlib import Path

from clawrec.cli import main
from taskspec.load import load_spec

SITE = "http://127.0.0.1:41002/"


def jsonl(path: Path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def hold_run(folder: Path) -> Path:
    """Start page /search; a GET form the person blocks (`b` in the terminal); a feedback POST nobody answered
    (blocked at the timeout); a newsletter POST the person allowed, after the last click."""
    folder.mkdir()
    (folder / "manifest.json").write_text(json.dumps({"agent": "human", "status": "ok", "sites": {"shop": SITE},
                                                      "task": {"id": "shop-search", "start_url": SITE + "search"}}))
    (folder / "task.json").write_text(json.dumps({"instruction": "Find shoes, size 42."}))
    jsonl(folder / "actions.jsonl", [
        {"t": 0.1, "type": "navigate", "url": SITE + "search"},
        {"t": 1.0, "type": "input", "value": "shoes", "target": {"id": "q"}},
        {"t": 1.5, "type": "click", "target": {"id": "go"}},
        {"t": 3.0, "type": "click", "target": {"id": "newsletter"}}])
    jsonl(folder / "http.jsonl", [
        {"t": 0.2, "id": "n1", "method": "GET", "url": SITE + "search", "resource_type": "Document", "body": None},
        {"t": 1.6, "id": "n2", "method": "GET", "url": SITE + "search?q=shoes&size=42&submit=Go",
         "resource_type": "Document", "body": None, "intercepted": "held_blocked"},
        {"t": 2.5, "id": "n3", "method": "POST", "url": SITE + "api/feedback", "intercepted": "held_blocked",
         "body": {"kind": "json", "value": {"stars": 5}}},
        {"t": 3.1, "id": "n4", "method": "POST", "url": SITE + "api/newsletter",
         "body": {"kind": "json", "value": {"email": "a@example.com"}}}])
    jsonl(folder / "interceptions.jsonl", [
        {"t": 1.9, "method": "GET", "url": SITE + "search?q=shoes&size=42&submit=Go", "network_id": "n2",
         "query": {"q": "shoes", "size": "42", "submit": "Go"}, "body": None, "body_kind": "empty",
         "action": "held_blocked", "held": {"id": 1, "by": "terminal"}},
        {"t": 62.5, "method": "POST", "url": SITE + "api/feedback", "network_id": "n3", "body": {"stars": 5},
         "body_kind": "json", "action": "held_blocked", "held": {"id": 2, "by": "timeout"}}])
    return folder


def test_the_blocked_get_form_is_the_terminal_and_its_spec_passes_check_spec(tmp_path, capsys):
    run = hold_run(tmp_path / "run")
    out = tmp_path / "specs" / "shop-search.yaml"
    code = main(["annotate", str(run), "--out", str(out)])
    stdout, err = capsys.readouterr()
    assert code == 0, err
    lines = stdout.splitlines()
    assert [ln.split()[1] + " " + ln.split()[2].rsplit("/", 1)[1] for ln in lines[:3]] == [
        "GET search?q=shoes&size=42&submit=Go", "POST feedback", "POST newsletter"], stdout
    assert "[q, size, submit]  (blocked by the person: interceptions.jsonl:1)" in lines[0]
    assert "blocked at the hold timeout" in lines[1]
    assert f"check-spec: {run} (reference): 1 match(es) -- OK" in err and "http.jsonl:2 GET" in err, err
    spec = load_spec(out)  # validates: the rule does not match the start page's GET (same URL, no query)
    rule = spec.intercept[0]
    assert (rule.url, rule.methods, rule.fields, rule.equals) == ("{sites.shop}search", ("GET",), ("q",), {})
    assert spec.expect == {"q": "shoes", "size": "42"} and spec.start_url == "{sites.shop}search"
    assert "submit (submit button or CSRF field)" in out.read_text()
    assert main(["check-spec", str(out)]) == 0, capsys.readouterr()
