"""The intercept rule's `nonempty` key: the same meaning in the spec checker, the Python matcher (HTTP requests,
writes, check-spec) and the WebSocket guard's JS (run in node, the guard's own source), and fail-closed where
the body cannot be read. Why it exists: a help desk's take and reply post the same form to the same URL; only the
comment being empty tells them apart (specs/apps/helpdesk/helpdesk-take-reply.yaml)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from interceptor.wsguard import GUARD_JS, compile_rules
from taskspec import match, payload
from taskspec.check import check_spec_data
from taskspec.fieldpath import MISSING, is_nonempty
from taskspec.limits import MAX_DECODE_BYTES
from taskspec.model import Rule

URL = "http://h/tickets/2/update/"
REPLY = Rule(index=0, url="http://h/tickets/*/update/", methods=("POST",), nonempty=("comment",))
BOUNDARY = "----b"


def multipart(fields: dict[str, str]) -> payload.Body:
    parts = "".join(f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n"
                    for k, v in fields.items())
    return payload.decode(f"{parts}--{BOUNDARY}--\r\n".encode(), f"multipart/form-data; boundary={BOUNDARY}")


def form(text: str) -> payload.Body:
    return payload.decode(text.encode(), "application/x-www-form-urlencoded")


@pytest.mark.parametrize(("value", "full"), [
    (MISSING, False), (None, False), ("", False), ([], False), ({}, False), (["", ""], False),
    ("x", True), (" ", True), (0, True), (False, True), (["", "x"], True), ({"a": ""}, True),
])
def test_what_counts_as_empty(value, full):
    assert is_nonempty(value) is full


def test_the_take_continues_and_the_reply_is_caught_with_or_without_public():
    take = multipart({"comment": "", "new_status": "1", "owner": "1", "title": "Charged twice"})
    reply_public = multipart({"comment": "I am looking into it.", "public": "1", "owner": "1"})
    reply_internal = multipart({"comment": "I am looking into it.", "owner": "1"})
    assert not match.matches(REPLY, "POST", URL, take)
    assert match.matches(REPLY, "POST", URL, reply_public)
    assert match.matches(REPLY, "POST", URL, reply_internal)
    assert not match.matches(REPLY, "POST", URL, multipart({"new_status": "1"}))  # no comment at all


def test_forms_json_query_and_repeated_keys():
    assert match.matches(REPLY, "POST", URL, form("comment=hi&x="))
    assert not match.matches(REPLY, "POST", URL, form("comment=&x=1"))
    assert match.matches(REPLY, "POST", URL, form("comment=&comment=hi"))  # any value of a repeated key
    assert match.matches(REPLY, "POST", URL, payload.decode(b'{"comment": "hi"}', "application/json"))
    assert not match.matches(REPLY, "POST", URL, payload.decode(b'{"comment": null}', "application/json"))
    get = Rule(index=0, url="http://h/search", nonempty=("q",))
    assert match.matches(get, "GET", "http://h/search?q=shoes", payload.decode(b""))
    assert not match.matches(get, "GET", "http://h/search?q=", payload.decode(b""))


def test_a_body_too_large_to_decode_is_not_decided_so_the_interceptor_holds_it():
    """interceptor/core.py holds a request to a rule's URL whose body has `decode` set (fail closed); `nonempty`
    needs the body, so such a request is never decided as 'empty' and continued."""
    big = payload.decode(b"comment=" + b"x" * (MAX_DECODE_BYTES + 1), "application/x-www-form-urlencoded")
    assert big.decode and match.needs_body(REPLY)
    assert match.first_match([REPLY], "POST", URL, big) is None  # undecided: core.py's fail-closed branch


def test_the_checker_reads_nonempty_on_intercept_and_writes_and_refuses_a_bad_one(tmp_path):
    spec = {"version": 1, "id": "t", "instruction": "reply", "start_url": "http://h/",
            "intercept": [{"url": "http://h/tickets/*/update/", "method": "POST", "nonempty": ["comment"]}],
            "writes": [{"url": "http://h/tickets/*/update/", "nonempty": ["title"], "expect": {"owner": "1"}}]}
    problems, loaded = check_spec_data(spec, file="t.yaml", spec_path=tmp_path / "t.yaml", raw=b"")
    assert not problems and loaded is not None
    assert loaded.intercept[0].nonempty == ("comment",) and loaded.writes[0].rule.nonempty == ("title",)
    spec["intercept"][0]["nonempty"] = "comment"
    problems, _ = check_spec_data(spec, file="t.yaml", spec_path=tmp_path / "t.yaml", raw=b"")
    assert [p.field for p in problems] == ["intercept.0.nonempty"], problems


NODE_HARNESS = """
const sent = [], reports = [];
globalThis.console.debug = (m) => reports.push(m);
class WebSocket { constructor(url) { this._url = url; } }
Object.defineProperty(WebSocket.prototype, 'url', {get() { return this._url; }, configurable: true});
Object.defineProperty(WebSocket.prototype, 'readyState', {get() { return 1; }, configurable: true});
Object.defineProperty(WebSocket.prototype, 'send', {value(d) { sent.push(d); }, writable: true, configurable: true});
globalThis.WebSocket = WebSocket;
eval(require('fs').readFileSync(0, 'utf8'));
const ws = new WebSocket('ws://h/live');
for (const m of MESSAGES) ws.send(m);
process.stdout.write(JSON.stringify({sent, caught: reports.length}));
"""


def test_the_websocket_guard_applies_nonempty_as_the_python_matcher_does():
    """The guard's own JS (interceptor/wsguard.py) in node: a message with an empty comment goes out, one with a
    comment is dropped and reported; the Python matcher agrees on each message."""
    node = shutil.which("node")
    assert node, "node is needed to run the WebSocket guard's JS"
    rule = Rule(index=0, url="ws://h/live", nonempty=("comment",))
    messages = [json.dumps({"comment": ""}), json.dumps({"comment": "hi"}), json.dumps({"other": 1}),
                json.dumps([{"comment": None}, {"comment": "batched"}])]
    source = GUARD_JS % {"key": '"K:"', "event": '"E"', "rules": json.dumps(compile_rules([rule])), "hold": "null"}
    script = f"const MESSAGES = {json.dumps(messages)};\n" + NODE_HARNESS
    out = subprocess.run([node, "-e", script], input=source, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    python_caught = [m for m in messages if match.websocket_message_matches(rule, "ws://h/live", m)]
    assert result["sent"] == [messages[0], messages[2]]
    assert python_caught == [messages[1], messages[3]] and result["caught"] == 2
