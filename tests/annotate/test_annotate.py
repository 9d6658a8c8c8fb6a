"""`clawrec annotate`: hand-built runs (form, batched GraphQL, multipart, WebSocket) become specs whose rule, run
through the interceptor's own matcher, catches the recorded terminal request (also with optional fields left out)
and nothing else the person sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from clawrec.cli import main
from clawrec.taskfile import expand_sites
from taskspec import match
from taskspec.payload import Body
from taskspec.load import load_spec

FIX = Path(__file__).resolve().parent / "fixtures"


def annotate(capsys, *args: str) -> tuple[int, list[str], str]:
    code = main(["annotate", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out.strip().splitlines(), err


def http(run: str) -> list[dict]:
    return [json.loads(line) for line in (FIX / run / "http.jsonl").read_text().splitlines() if line.strip()]


def sites(run: str) -> dict[str, str]:
    return json.loads((FIX / run / "manifest.json").read_text())["sites"]


def rule_catches(spec_path: Path, run: str, rec: dict) -> bool:
    """The spec's rule (placeholders filled with the run's sites) against a recorded request, via match.matches."""
    rule = expand_sites(load_spec(spec_path), sites(run)).intercept[0]
    body = rec.get("body") or {}
    return match.matches(rule, rec["method"], rec["url"], Body(body.get("kind", "empty"), body.get("value")))


def test_form_run_ranks_the_post_after_the_last_click_and_writes_a_general_spec(tmp_path, capsys):
    out = tmp_path / "specs" / "shop-order.yaml"
    code, lines, err = annotate(capsys, FIX / "shop-form", "--out", out)
    assert code == 0, err
    # beacons (Ping type, /api/analytics, google-analytics, /api/log/errors) and GETs are not candidates
    assert [ln.split()[1:3] for ln in lines[:4]] == [
        ["POST", "http://127.0.0.1:41001/orders/5541/submit?step=3#top"],
        ["POST", "http://127.0.0.1:41001/api/recommendations"],
        ["PUT", "http://127.0.0.1:41001/api/address/validate"],
        ["POST", "http://127.0.0.1:41001/api/cart/items"]]
    assert "csrf_token, street, city" in lines[0] and "after the last click" in lines[0]
    assert lines[-1].startswith(f"wrote {out}")
    data = yaml.safe_load(out.read_text())
    rule = data["intercept"][0]
    assert rule["url"] == "{sites.shop}orders/*/submit" and rule["method"] == "POST"
    assert set(data["volatile"]) == {"csrf_token", "client_ref"}
    # URL + method single the order out: no required field, the values go to expect (for the judge)
    assert "fields" not in rule and "equals" not in rule
    assert data["expect"]["payment"] == "saved_card" and data["expect"]["street"] == "12 Main St"
    assert "password" not in data["expect"] and "csrf_token" not in data["expect"]
    assert data["instruction"] == "Order one pair of Trail runner shoes, size 42, and pay with the saved card."
    assert data["start_url"] == "{sites.shop}" and data["user"]["email"] == "alex@example.com"
    assert (out.parent / data["reference"]).resolve() == (FIX / "shop-form").resolve()
    spec = load_spec(out)
    assert spec.reference == (FIX / "shop-form").resolve() and spec.id == "shop-order"
    recs = http("shop-form")
    assert rule_catches(out, "shop-form", recs[6])                                # the order (another order id too)
    assert rule_catches(out, "shop-form", {**recs[6], "url": "http://127.0.0.1:41001/orders/9/submit"})
    assert not any(rule_catches(out, "shop-form", r) for i, r in enumerate(recs) if i != 6)
    for optional in ("street", "payment", "csrf_token"):  # any one field left out: still caught
        assert rule_catches(out, "shop-form", without(recs[6], optional)), optional


def without(rec: dict, *paths: str) -> dict:
    """A copy of a recorded request with dotted body paths removed."""
    rec = json.loads(json.dumps(rec))
    for path in paths:
        *head, last = path.split(".")
        node = rec["body"]["value"]
        for part in head:
            node = node[int(part)] if isinstance(node, list) else node[part]
        del node[last]
    return rec


def test_pick_and_equals_choose_the_candidate_and_constants(tmp_path, capsys):
    out = tmp_path / "addr.yaml"
    code, lines, err = annotate(capsys, FIX / "shop-form", "--out", out, "--pick", "3", "--equals", "street")
    rule = yaml.safe_load(out.read_text())["intercept"][0]
    assert rule == {"url": "{sites.shop}api/address/validate", "method": "PUT", "equals": {"street": "12 Main St"}}
    # written, but check-spec takes the run's terminal request (the order POST) as the reference's: exit 1, one line
    assert code == 1 and err.strip().splitlines()[-1] == (
        f"clawrec: check-spec does not accept {out} on {FIX / 'shop-form'}: candidate 3 (http.jsonl:5) is not the "
        f"run's terminal request (http.jsonl:7), which check-spec takes as the reference's: clawrec annotate "
        f"{FIX / 'shop-form'} --out {out} --force --equals street writes the spec for that one"), err


def test_fields_adds_what_a_person_requires(tmp_path, capsys):
    out = tmp_path / "shop-order.yaml"
    code, _lines, err = annotate(capsys, FIX / "shop-form", "--out", out, "--fields", "street,payment")
    assert code == 0, err
    data = yaml.safe_load(out.read_text())
    assert data["intercept"][0]["fields"] == ["street", "payment"] and data["expect"]["city"] == "Austin"
    order = http("shop-form")[6]
    assert rule_catches(out, "shop-form", without(order, "city"))  # a variant without `city` is still caught
    assert not rule_catches(out, "shop-form", without(order, "street"))  # the person asked for `street`


def test_batched_graphql_picks_the_mutation_by_operation_name(tmp_path, capsys):
    out = tmp_path / "shop-trail-order.yaml"
    code, lines, err = annotate(capsys, FIX / "shop-graphql", "--out", out, "--instruction", "Buy the shoes")
    assert code == 0, err
    assert len(lines) == 2 and "operationName=PlaceOrder" in lines[0]  # the GetCart query batch is a read
    data = yaml.safe_load(out.read_text())
    rule = data["intercept"][0]
    assert rule["equals"] == {"operationName": "PlaceOrder"} and rule["url"] == "{sites.shop}graphql"
    assert "fields" not in rule  # the operation name already tells PlaceOrder from every other /graphql POST
    assert data["expect"]["variables.input.shippingAddress.zip"] == "78701"
    assert data["volatile"] == ["variables.input.paymentToken"] and data["instruction"] == "Buy the shoes"
    place, get_cart = http("shop-graphql")[1], http("shop-graphql")[0]
    assert rule_catches(out, "shop-graphql", place) and not rule_catches(out, "shop-graphql", get_cart)
    assert rule_catches(out, "shop-graphql", without(place, "0.variables.input.shippingAddress.zip"))
    track_only = {**place, "body": {"kind": "json", "value": place["body"]["value"][1:]}}
    assert not rule_catches(out, "shop-graphql", track_only)


def test_multipart_file_part_is_a_field_only(tmp_path, capsys):
    out = tmp_path / "jobs-apply.yaml"
    code, _lines, err = annotate(capsys, FIX / "jobs-multipart", "--out", out, "--equals", "job_id")
    assert code == 0, err
    data = yaml.safe_load(out.read_text())
    rule = data["intercept"][0]
    assert rule["url"] == "{sites.jobs}jobs/*/apply/submit" and "fields" not in rule
    assert rule["equals"] == {"job_id": "1042"} and "resume" not in data["expect"]
    assert data["expect"]["full_name"] == "Alex Doe" and data["volatile"] == ["csrf_token"]
    assert rule_catches(out, "jobs-multipart", http("jobs-multipart")[2])
    assert not rule_catches(out, "jobs-multipart", http("jobs-multipart")[1])


def test_websocket_message_becomes_a_ws_rule(tmp_path, capsys):
    out = tmp_path / "social-comment.yaml"
    code, lines, err = annotate(capsys, FIX / "social-ws", "--out", out, "--instruction", "Comment",
                                "--equals", "op")
    assert code == 0, err
    assert [ln.split()[1] for ln in lines[:-1]] == ["WS", "WS"]  # the recorder's own channel is not listed
    data = yaml.safe_load(out.read_text())
    rule = load_spec(out).intercept[0]
    assert rule.is_websocket and rule.url == "ws://127.0.0.1:*/ws" and not rule.methods
    assert data["volatile"] == ["nonce"] and rule.equals == {"op": "comment"} and not rule.fields
    frames = http("social-ws")
    assert match.websocket_message_matches(rule, "ws://127.0.0.1:50001/ws", frames[4]["payload"])
    assert not match.websocket_message_matches(rule, "ws://127.0.0.1:50001/ws", frames[2]["payload"])


@pytest.mark.parametrize("args, message", [
    (["/nonexistent/run"], "/nonexistent/run: not a run directory"),
    ([FIX / "corrupt-http"], "corrupt-http/http.jsonl:2: corrupt JSONL line"),
    ([FIX / "shop-form", "--pick", "9"], "--pick 9: there are 4 candidates"),
    ([FIX / "shop-form", "--equals", "nope"], "--equals nope: no such field"),
    ([FIX / "shop-form", "--fields", "street,nope"], "--fields nope: no such field"),
    ([FIX / "shop-graphql"], "no task instruction; pass --instruction"),
    ([FIX / "shop-form", "--id", "a", "--out", "b.yaml"], "must be named a.yaml"),
])
def test_bad_input_is_one_line_and_exit_2(args, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _lines, err = annotate(capsys, *args)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("clawrec: ") and message in err, err
    assert "Traceback" not in err and not list(tmp_path.glob("*.yaml"))


def test_existing_spec_is_not_overwritten_without_force(tmp_path, capsys):
    out = tmp_path / "shop-order.yaml"
    out.write_text("keep me")
    code, _lines, err = annotate(capsys, FIX / "shop-form", "--out", out)
    assert code == 2 and "already exists" in err and out.read_text() == "keep me"
    code, _lines, err = annotate(capsys, FIX / "shop-form", "--out", out, "--force")
    assert code == 0 and load_spec(out).id == "shop-order"
