"""What annotate adds when the final request and an earlier write go to the same URL with the same fields
(taskspec/distinguish.py `tell_apart`), on the two real applications that showed it (issue 34) and on small cases:
- a take and a reply on a help desk: the comment empty vs written -> `nonempty: [comment]`, never the `public`
  checkbox's presence (a reply with Public off would reach the desk);
- Roundcube's draft save and send: `_draft` '1' vs '' -> `equals: {_draft: ''}`, never `_draft_saveid` (an id)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from clawrec.cli import main
from clawrec.taskfile import expand_sites
from taskspec import match
from taskspec.distinguish import Sent, is_flag, is_free_text, tell_apart, telling_values
from taskspec.load import load_spec
from taskspec.model import Rule
from taskspec.payload import Body

ROOT = Path(__file__).resolve().parents[2]
URL = "http://h/tickets/2/update/"
RULE = Rule(index=0, url="http://h/tickets/*/update/", methods=("POST",))


def sent(line: int, value: dict) -> Sent:
    return Sent(line=line, method="POST", url=URL, kind="urlencoded", value=value)


def pairs(value: dict) -> list:
    return list(value.items())


def test_flag_and_free_text_shapes():
    assert is_flag("_draft", "") and is_flag("_draft", "1") and is_flag("public", "on") and is_flag("x", True)
    assert not is_flag("_draft_saveid", "1") and not is_flag("ticketId", "0") and not is_flag("title", "Hello")
    assert is_free_text("comment", "I will look into it.")
    assert not is_free_text("comment", "ok") and not is_free_text("owner_id", "a b") and not is_free_text("n", 5)


def test_a_comment_left_empty_is_told_apart_by_nonempty_not_by_the_checkbox():
    take = sent(1, {"comment": "", "owner": "1", "title": "Charged twice"})
    reply = sent(2, {"comment": "I am looking into it.", "public": "1", "owner": "1", "title": "Charged twice"})
    told = tell_apart(RULE, reply, [take, reply], pairs(reply.value))
    assert (told.fields, told.nonempty, told.equals, told.left) == ((), ("comment",), {}, ())


def test_a_field_the_look_alike_lacks_still_comes_first():
    """Presence of a non-flag field (the shop's `payment`) is the least a rule can ask: chosen before `nonempty`."""
    draft = sent(1, {"street": "", "note": ""})
    order = sent(2, {"street": "12 Main St", "note": "", "payment": "card"})
    told = tell_apart(RULE, order, [draft], pairs(order.value))
    assert told.fields == ("payment",) and told.nonempty == () and not told.left


def test_only_a_flag_value_is_pinned_never_an_id_or_a_text():
    save = sent(1, {"_draft_saveid": "", "_draft": "1", "_message": "Hi there"})
    send = sent(2, {"_draft_saveid": "1", "_draft": "", "_message": "Hi there"})
    told = tell_apart(RULE, send, [save], pairs(send.value))
    assert told.equals == {"_draft": ""} and told.nonempty == () and not told.left
    assert telling_values(RULE, send, [save], pairs(send.value)) == ["_draft", "_draft_saveid"]
    other = sent(1, {"street": "1 Other Rd"})
    order = sent(2, {"street": "12 Main St"})
    told = tell_apart(RULE, order, [other], pairs(order.value))
    assert told.equals == {} and told.left == (other,)  # a text is only suggested (--equals), never pinned


def reannotate(tmp_path: Path, capsys, spec: str) -> tuple[Path, Path]:
    rel = Path(spec)
    reference = ROOT / "runs" / "reference" / rel.stem
    out = tmp_path / rel.name
    code = main(["annotate", str(reference), "--from-spec", str(ROOT / "specs" / "apps" / rel), "--out", str(out),
                 "--force"])
    assert code == 0, capsys.readouterr().err
    return reference, out


def http_posts(reference: Path) -> list[dict]:
    lines = [json.loads(x) for x in (reference / "http.jsonl").read_text().splitlines() if x.strip()]
    return [r for r in lines if r.get("method") == "POST" and (r.get("body") or {}).get("value")]


def test_helpdesk_reference_reannotated_catches_the_reply_with_public_off_and_lets_the_take_through(tmp_path,
                                                                                                    capsys):
    reference, out = reannotate(tmp_path, capsys, "helpdesk/helpdesk-take-reply.yaml")
    rule_data = yaml.safe_load(out.read_text())["intercept"][0]
    assert rule_data.get("nonempty") == ["comment"] and "fields" not in rule_data
    sites = json.loads((reference / "manifest.json").read_text())["sites"]
    rule = expand_sites(load_spec(out), sites).intercept[0]
    take, reply = [r for r in http_posts(reference) if "/update/" in r["url"]]
    caught = [match.matches(rule, "POST", r["url"], Body(r["body"]["kind"], r["body"]["value"])) for r in (take, reply)]
    assert caught == [False, True]
    internal = {k: v for k, v in reply["body"]["value"].items() if k != "public"}  # the reply with Public off
    assert match.matches(rule, "POST", reply["url"], Body("multipart", internal))


def test_webmail_reference_reannotated_pins_the_draft_flag_and_catches_only_the_send(tmp_path, capsys):
    reference, out = reannotate(tmp_path, capsys, "webmail/webmail-draft-send.yaml")
    rule_data = yaml.safe_load(out.read_text())["intercept"][0]
    assert rule_data["equals"] == {"_action": "send", "_draft": ""}
    sites = json.loads((reference / "manifest.json").read_text())["sites"]
    rule = expand_sites(load_spec(out), sites).intercept[0]
    sends = [r for r in http_posts(reference) if r["body"]["value"].get("_action") == "send"]
    caught = [r["body"]["value"]["_draft"] for r in sends
              if match.matches(rule, "POST", r["url"], Body(r["body"]["kind"], r["body"]["value"]))]
    assert len(sends) == 2 and caught == [""]


@pytest.mark.parametrize("spec", ["helpdesk/helpdesk-take-reply.yaml", "webmail/webmail-draft-send.yaml"])
def test_the_committed_spec_has_the_rule_annotate_writes(spec, tmp_path, capsys):
    _reference, out = reannotate(tmp_path, capsys, spec)
    committed = load_spec(ROOT / "specs" / "apps" / spec).intercept[0]
    annotated = load_spec(out).intercept[0]
    assert (committed.fields, committed.nonempty, committed.equals) == \
        (annotated.fields, annotated.nonempty, annotated.equals)


def test_nonempty_option_adds_to_what_annotate_finds_and_refuses_an_empty_field(tmp_path, capsys):
    reference = ROOT / "runs" / "reference" / "helpdesk-take-reply"
    spec = ROOT / "specs" / "apps" / "helpdesk" / "helpdesk-take-reply.yaml"
    out = tmp_path / "helpdesk-take-reply.yaml"
    assert main(["annotate", str(reference), "--from-spec", str(spec), "--out", str(out), "--nonempty", "title"]) == 0
    assert yaml.safe_load(out.read_text())["intercept"][0]["nonempty"] == ["title", "comment"]
    capsys.readouterr()
    code = main(["annotate", str(reference), "--from-spec", str(spec), "--out", str(out), "--force",
                 "--nonempty", "time_spent"])
    assert code == 2
    assert "--nonempty time_spent: the payload has no such field, or it is empty" in capsys.readouterr().err
