"""Which earlier writes annotate proposes (taskspec/propose_writes.py), which action it pins (taskspec/action_field.py),
and what check-spec says of write rules (taskspec/write_runs.py), on small run folders written as the recorder writes
them (http.jsonl, interceptions.jsonl, actions.jsonl, task.json, manifest.json)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from clawrec.cli import main

SITE = "http://127.0.0.1:9/"
TASK = {"instruction": 'Order 2 bags of "Arabica" and send my CV.', "user": {"email": "alex@example.com",
                                                                            "postcode": "75001"},
        "files": []}


def form(**fields) -> dict:
    return {"kind": "urlencoded", "value": fields}


def make_run(folder: Path, requests: list[dict], actions: list[dict] = ()) -> Path:
    """A person's run: each request {url, body, t, [intercepted], [status]} in http.jsonl; the one marked
    `blocked` is the terminal request the person blocked in hold mode (also in interceptions.jsonl)."""
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({"agent": "human", "status": "ok",
                                                      "task": {"id": "t", "start_url": SITE}}))
    cv = folder.parent / "files" / "cv.pdf"
    cv.parent.mkdir(exist_ok=True)
    cv.write_bytes(b"%PDF-1.4 cv")
    (folder / "task.json").write_text(json.dumps({**TASK, "files": [str(cv)]}))
    http, catches = [], []
    for n, r in enumerate(requests):
        rec = {"t": r["t"] + 0.05, "started": r["t"], "id": f"r{n}", "url": SITE + r["url"],
               "method": r.get("method", "POST"), "body": r["body"], "intercepted": None,
               "response": {"status": r.get("status", 302)}}
        if r.get("blocked"):
            rec.update(intercepted="held_blocked", response=None)
            catches.append({"t": r["t"], "method": rec["method"], "url": rec["url"], "body": r["body"]["value"],
                            "body_kind": r["body"]["kind"], "network_id": rec["id"], "rule": None,
                            "action": "held_blocked", "held": {"id": len(catches) + 1, "by": "page"}})
        http.append(json.dumps(rec))
    (folder / "http.jsonl").write_text("\n".join(http) + "\n")
    (folder / "interceptions.jsonl").write_text("".join(json.dumps(c) + "\n" for c in catches))
    (folder / "actions.jsonl").write_text("".join(json.dumps(a) + "\n" for a in actions))
    return folder


def annotate(capsys, run: Path, out: Path) -> tuple[int, dict, str]:
    code = main(["annotate", str(run), "--out", str(out)])
    stdout, err = capsys.readouterr()
    return code, (yaml.safe_load(out.read_text()) if out.exists() else {}), out.read_text() + stdout + err \
        if out.exists() else stdout + err


def test_the_last_write_of_a_rule_is_proposed_and_plumbing_or_unreached_writes_are_not(tmp_path, capsys):
    run = make_run(tmp_path / "run", [
        {"url": "basket/add/", "t": 1, "body": form(csrfmiddlewaretoken="[redacted]", product="Arabica", qty="3")},
        {"url": "basket/add/", "t": 2, "body": form(csrfmiddlewaretoken="[redacted]", product="Arabica", qty="2",
                                                    step="2")},  # a page counter: no task value
        {"url": "api/viewed", "t": 2.5, "body": {"kind": "json", "value": {"product_id": 17, "ts": 1764300000}}},
        {"url": "newsletter/", "t": 3, "body": form(email="alex@example.com"), "status": None},  # never answered
        {"url": "cv/", "t": 3.5, "body": {"kind": "multipart", "value": {
            "cv": {"filename": "cv.pdf", "size": 10, "sha256": "ab" * 32}, "note": "hi"}}},
        {"url": "checkout/", "t": 4, "blocked": True, "body": form(csrfmiddlewaretoken="[redacted]",
                                                                    action="place_order")},
        {"url": "checkout/address/", "t": 5, "body": form(postcode="75001")},  # after the terminal request
    ])
    code, spec, text = annotate(capsys, run, tmp_path / "t.yaml")
    assert code == 0, text
    assert spec["intercept"] == [{"url": SITE + "checkout/", "method": "POST", "equals": {"action": "place_order"}}]
    assert spec["writes"] == [
        {"name": "POST /basket/add/", "url": SITE + "basket/add/", "method": "POST",
         "expect": {"product": "Arabica", "qty": "2"}},
        {"name": "POST /cv/", "url": SITE + "cv/", "method": "POST", "expect": {"cv.filename": "cv.pdf"}}]
    assert "qty (the instruction's number 2)" in text and "cv (the task's file cv.pdf)" in text
    assert "POST http://127.0.0.1:9/api/viewed (http.jsonl line 3)" in text  # reached, no task value
    assert "newsletter" not in text.split("version: 1")[0]  # never reached the site: not even named
    assert main(["check-spec", str(tmp_path / "t.yaml")]) == 0
    report = capsys.readouterr().out
    assert "writes[0] (POST /basket/add/): reads http.jsonl:2 POST http://127.0.0.1:9/basket/add/ (the last of 2 " \
           "matches before it); expect product, qty" in report, report


def test_a_pressed_submit_button_is_pinned_but_a_framework_save_button_is_not(tmp_path, capsys):
    place = {"t": 3.9, "type": "submit", "action": SITE + "checkout/", "method": "post",
             "submitter": {"name": "place_order", "value": "1"}}
    run = make_run(tmp_path / "run", [
        {"url": "checkout/", "t": 1, "body": form(payment_details="1", card_holder="Alex")},
        {"url": "checkout/", "t": 4, "blocked": True, "body": form(place_order="1", _token="[redacted]")}], [place])
    code, spec, text = annotate(capsys, run, tmp_path / "t.yaml")
    assert code == 0 and spec["intercept"][0]["equals"] == {"place_order": "1"}, text
    assert "(rule 1; equals place_order=1)" in text

    save = {**place, "submitter": {"name": "_save", "value": "Save"}}
    run = make_run(tmp_path / "admin", [{"url": "admin/note/add/", "t": 4, "blocked": True,
                                         "body": form(_save="Save", text="hello")}], [save])
    code, spec, text = annotate(capsys, run, tmp_path / "admin.yaml")
    assert code == 0 and "equals" not in spec["intercept"][0], text

    run = make_run(tmp_path / "remix", [{"url": "notes/", "t": 4, "blocked": True,
                                         "body": form(_action="delete", id="5")}])
    code, spec, text = annotate(capsys, run, tmp_path / "remix.yaml")
    assert code == 0 and spec["intercept"][0]["equals"] == {"_action": "delete"}, text


def test_check_spec_names_a_write_rule_that_reads_nothing_or_lacks_a_field(tmp_path, capsys):
    run = make_run(tmp_path / "run", [
        {"url": "basket/add/", "t": 1, "body": form(product="Arabica", qty="2")},
        {"url": "checkout/", "t": 4, "blocked": True, "body": form(action="place_order")}])
    spec = tmp_path / "t.yaml"
    spec.write_text(f"""version: 1
id: t
instruction: x
start_url: {SITE}
intercept:
  - url: "{SITE}checkout/"
    equals: {{action: place_order}}
writes:
  - url: "{SITE}basket/add/"
    expect: {{qty: "2", colour: red}}
  - url: "{SITE}checkout/address/"
    expect: {{postcode: "75001"}}
""")
    assert main(["check-spec", str(spec), str(run)]) == 1
    report = capsys.readouterr().out
    assert "FAIL: 2 write rule(s) do not fit" in report, report
    assert "writes[0] (POST /basket/add/): reads http.jsonl:1 POST http://127.0.0.1:9/basket/add/; expect qty, " \
           "colour -- FAIL: expect field(s) colour not in the write it reads" in report, report
    assert "writes[1] (POST /checkout/address/): 0 match(es) -- FAIL: no matching write reached the site before " \
           "the terminal request http.jsonl:2" in report, report


def test_a_later_write_to_the_same_url_is_told_apart_by_a_field_or_named(tmp_path, capsys):
    """The site holds the last write a rule matches: a later one to the same URL without the task's values gets the
    rule a `fields` entry that excludes it; one that cannot be told apart leaves the write out, named in a note."""
    run = make_run(tmp_path / "run", [
        {"url": "profile/", "t": 1, "body": form(email="alex@example.com")},
        {"url": "profile/", "t": 2, "body": form(colour="red")},
        {"url": "address/", "t": 2.5, "body": form(postcode="75001")},
        {"url": "address/", "t": 3, "body": form(postcode="10115")},
        {"url": "checkout/", "t": 4, "blocked": True, "body": form(action="place_order")}])
    code, spec, text = annotate(capsys, run, tmp_path / "t.yaml")
    assert code == 0, text
    assert spec["writes"] == [{"name": "POST /profile/", "url": SITE + "profile/", "method": "POST",
                               "fields": ["email"], "expect": {"email": "alex@example.com"}}]
    assert "not proposed as a write: POST http://127.0.0.1:9/address/ (http.jsonl line 3) carries postcode, but " \
           "its rule would read a later request instead (http.jsonl line(s) 4)" in text, text
