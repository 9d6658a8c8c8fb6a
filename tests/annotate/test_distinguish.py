"""`clawrec annotate` requires only the fields that tell the terminal request apart from the person's other requests
to the same endpoint: on every real reference run, a submission with any one field left out is still caught, and
nothing else the person sent is; look-alikes on the same URL + method get the fewest fields that exclude them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from clawrec.cli import main
from clawrec.taskfile import expand_sites
from taskspec import match
from taskspec.annotate import leaves
from taskspec.payload import Body
from taskspec.load import load_spec

HERE = Path(__file__).resolve().parent
REAL = HERE.parent / "fixtures" / "runs" / "real"
SHOP_FORM = HERE / "fixtures" / "shop-form"


def annotate(capsys, run: Path, out: Path, *args: str) -> dict:
    code = main(["annotate", str(run), "--out", str(out), "--instruction", "Do the task", *args])
    _out, err = capsys.readouterr()
    assert code == 0, err
    return yaml.safe_load(out.read_text())


def records(run: Path, name: str) -> list[dict]:
    return [json.loads(line) for line in (run / name).read_text().splitlines() if line.strip()]


def drop(value, path: str):
    """A copy of `value` without the leaf at a dotted path."""
    value = json.loads(json.dumps(value))
    *head, last = path.split(".")
    node = value
    for part in head:
        node = node[int(part)] if isinstance(node, list) else node[part]
    if isinstance(node, list):
        node.pop(int(last))
    else:
        del node[last]
    return value


@pytest.mark.parametrize("task", ["jobs", "shop", "social-share", "social-status", "travel"])
def test_real_reference_rule_tolerates_any_missing_field_and_catches_nothing_else(task, tmp_path, capsys):
    run = tmp_path / "reference"
    shutil.copytree(REAL / task / "reference", run)
    out = tmp_path / f"{task}.yaml"
    data = annotate(capsys, run, out)
    assert "fields" not in data["intercept"][0]  # URL + method (+ GraphQL operation name) single it out
    sites = json.loads((run / "manifest.json").read_text())["sites"]
    rule = expand_sites(load_spec(out), sites).intercept[0]
    catch = records(run, "interceptions.jsonl")[0]
    kind = catch.get("body_kind") or "json"

    def caught(method: str, url: str, kind: str, value) -> bool:
        return match.matches(rule, method, url, Body(kind, value))

    assert caught(catch["method"], catch["url"], kind, catch["body"])
    # any single field left out (an optional one, a forgotten one): still caught; only the GraphQL operation name
    # is a constant the rule names
    paths = [p for p, _v in leaves(catch["body"]) if p.split(".")[-1] not in rule.equals]
    assert len(paths) >= 2
    for path in paths:
        assert caught(catch["method"], catch["url"], kind, drop(catch["body"], path)), path
    for rec in records(run, "http.jsonl"):  # nothing else the person sent is caught
        body = rec.get("body") or {}
        if rec.get("type", "request") == "request" and not rec.get("intercepted"):
            assert not caught(rec["method"], rec["url"], body.get("kind", "empty"), body.get("value")), rec["url"]
    # the values are for the judge: the multipart application (body only in interceptions.jsonl) has them too
    operation = catch["body"][0] if isinstance(catch["body"], list) else catch["body"]
    compared = [(k, v) for k, v in leaves(operation) if k in data["expect"]]
    assert len(compared) >= 2 and all(v == data["expect"][k] for k, v in compared)


def with_look_alike(tmp_path: Path, body: dict) -> Path:
    """A copy of the shop-form run where the person first sent another POST to the order URL (a draft save)."""
    run = tmp_path / "shop-form"
    shutil.copytree(SHOP_FORM, run)
    lines = (run / "http.jsonl").read_text().splitlines()
    order = json.loads(lines[6])
    draft = {**order, "id": "100.70", "t": 5.0, "started": 4.9,
             "body": {"kind": "urlencoded", "value": body, "size": 99, "complete": True}}
    lines.insert(4, json.dumps(draft))
    (run / "http.jsonl").write_text("\n".join(lines) + "\n")
    return run


def test_look_alike_on_the_same_url_gets_the_fewest_fields_that_exclude_it(tmp_path, capsys):
    draft = {"csrf_token": "c8Fj2kLq9ZxR4mTn7VbW1yPe", "street": "12 Main St", "city": "Austin", "size": "42",
             "qty": "1", "save_draft": "1"}
    run = with_look_alike(tmp_path, draft)
    out = tmp_path / "shop-order.yaml"
    data = annotate(capsys, run, out)
    rule_data = data["intercept"][0]
    assert rule_data["fields"] == ["payment"]  # the first field the draft lacks; one is enough
    assert "tell this request apart" in out.read_text()
    rule = expand_sites(load_spec(out), json.loads((run / "manifest.json").read_text())["sites"]).intercept[0]
    http = records(run, "http.jsonl")
    order, saved = http[7], http[4]
    url = order["url"]
    assert not match.matches(rule, "POST", url, Body("urlencoded", saved["body"]["value"]))
    for optional in ("street", "city", "shipping", "csrf_token"):
        assert match.matches(rule, "POST", url, Body("urlencoded", drop(order["body"]["value"], optional)))


def test_look_alike_that_only_values_tell_apart_is_reported(tmp_path, capsys):
    order = records(SHOP_FORM, "http.jsonl")[6]["body"]["value"]
    run = with_look_alike(tmp_path, {**order, "street": "1 Other Rd"})
    out = tmp_path / "shop-order.yaml"
    code = main(["annotate", str(run), "--out", str(out), "--instruction", "Do the task"])
    err = capsys.readouterr().err
    data = yaml.safe_load(out.read_text())  # written, for the person to read; check-spec fails: exit 1, next step
    assert "fields" not in data["intercept"][0]  # presence cannot tell them apart: nothing required in vain
    assert "also catches 1 other request(s) of the run (http.jsonl line(s) 5)" in out.read_text()
    assert code == 1 and err.strip().splitlines()[-1].endswith(
        f"the value of street tells them apart: clawrec annotate {run} --out {out} --force --equals street"), err
    assert main(["annotate", str(run), "--out", str(out), "--instruction", "Do the task", "--force",
                 "--equals", "street"]) == 0, capsys.readouterr().err
    assert "(reference): 1 match(es) -- OK" in capsys.readouterr().err


def test_websocket_comment_is_told_apart_from_the_subscription_by_a_field(tmp_path, capsys):
    out = tmp_path / "social-comment.yaml"
    data = annotate(capsys, HERE / "fixtures" / "social-ws", out)
    assert data["intercept"][0]["fields"] == ["text"]
    rule = load_spec(out).intercept[0]
    frames = records(HERE / "fixtures" / "social-ws", "http.jsonl")
    assert match.websocket_message_matches(rule, "ws://127.0.0.1:50001/ws", frames[4]["payload"])
    assert not match.websocket_message_matches(rule, "ws://127.0.0.1:50001/ws", frames[2]["payload"])
    comment = json.loads(frames[4]["payload"])
    assert match.websocket_message_matches(rule, "ws://127.0.0.1:50001/ws", json.dumps(drop(comment, "post_id")))
