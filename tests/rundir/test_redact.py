"""The redaction policy (rundir/redact.py): every name in the README table is a secret, the look-alikes are not,
and a record passing the one JsonlWriter comes out without them."""

from __future__ import annotations

import json

import pytest

from rundir.records import JsonlWriter, read_jsonl
from rundir.redact import REDACTED, Redactor, redact_url, secret_field, secret_input, secret_name

SECRET = ["Authorization", "Cookie", "set-cookie", "X-Api-Key", "x-auth-token", "Proxy-Authorization",
          "X-Vendor-Token", "x-goog-secret", "stripe-key", "password", "newPassword", "passwd", "pass", "pin", "PIN",
          "otp", "token", "access_token", "refresh_token", "api_key", "apiKey", "client_secret", "card_number",
          "cardNumber", "cc-number", "cvc", "cvv2", "securityCode", "one_time_code", "csrf_token"]
NOT_SECRET = ["passengers", "passport", "pinned", "spinner", "shipping", "key", "keyCode", "tokens_used",
              "couponCode", "postalCode", "cardLast4", "Content-Type", "Sec-WebSocket-Key", "note", "email",
              "work_authorization", "workAuthorization", "require_cookie"]


@pytest.mark.parametrize("name", SECRET)
def test_secret_names(name):
    assert secret_name(name)


@pytest.mark.parametrize("name", NOT_SECRET)
def test_look_alikes_are_not_secret(name):
    assert not secret_name(name)


def test_code_is_secret_when_it_is_a_one_time_code():
    assert secret_field("code", "482913") and not secret_field("code", "WELCOME10")


def test_urls_keep_everything_but_secret_query_values():
    url = "https://h/p?q=a%20b&access_token=T0K&api_key=K&x=1#f"
    assert redact_url(url) == f"https://h/p?q=a%20b&access_token={REDACTED}&api_key={REDACTED}&x=1#f"


@pytest.mark.parametrize("target", [{"type": "password"}, {"type": "text", "autocomplete": "one-time-code"},
                                    {"autocomplete": "cc-number"}, {"autocomplete": "billing cc-csc"},
                                    {"type": "text", "name_attr": "otp"}])
def test_secret_inputs(target):
    assert secret_input(target)


def test_writer_redacts_every_layer_shape(tmp_path):
    w = JsonlWriter(tmp_path / "x.jsonl", redactor=Redactor(["M-55821-ZZ"]))
    w.write({"type": "input", "target": {"type": "text", "autocomplete": "one-time-code"}, "value": "482913"})
    w.write({"type": "keydown", "target": {"type": "password"}, "key": "a", "code": "KeyA"})
    w.write({"type": "keydown", "target": {"type": "password"}, "key": "Enter"})
    w.write({"url": "http://h/?token=abc", "headers": {"X-Api-Key": "k1", "Accept": "*/*"},
             "body": {"value": {"user": "alex", "pin": 1234, "nested": [{"client_secret": "s"}]}}})
    w.write({"role": "tool_call", "content": "typed M-55821-ZZ", "args": {"text": "M-55821-ZZ"}})
    w.close()
    recs, bad = read_jsonl(tmp_path / "x.jsonl")
    assert not bad
    assert recs[0]["value"] is None and recs[0]["masked"] is True
    assert recs[1]["key"] is None and recs[1]["code"] is None and recs[2]["key"] == "Enter"
    assert recs[3]["url"] == f"http://h/?token={REDACTED}" and recs[3]["headers"] == {"X-Api-Key": REDACTED,
                                                                                      "Accept": "*/*"}
    assert recs[3]["body"]["value"] == {"user": "alex", "pin": REDACTED, "nested": [{"client_secret": REDACTED}]}
    assert recs[4]["content"] == f"typed {REDACTED}" and recs[4]["args"]["text"] == REDACTED


@pytest.mark.parametrize("name", SECRET + ["ccNumber", "securityCode", "2fa_code", "x-xsrf-token", "hotp"])
def test_every_secret_name_passes_the_fast_path(name):
    """The writer skips the walk for a line without a SUSPECT word: each secret name must contain one."""
    assert secret_name(name) or name == "2fa_code"
    assert Redactor().suspect(f'{{"{name}":"v"}}')


def test_stream_redactor_catches_a_value_split_across_reads_at_every_cut():
    """An agent's stdout arrives in arbitrary reads: wherever a secret value is cut, it never comes out; text that
    cannot begin a secret passes at once (nothing held), and the held tail is released at the end."""
    from rundir.redact import StreamRedactor

    secret = 'Pw-"9Qz!x3'  # a quote: also caught as it appears inside a JSON string the agent prints
    text = f"login pw={secret} then {{\"password\": {json.dumps(secret)}}} and P end P".encode()
    for cut in range(1, len(text)):
        stream = StreamRedactor(Redactor([secret]))
        out = stream.feed(text[:cut]) + stream.feed(text[cut:]) + stream.end()
        assert out == b'login pw=[redacted] then {"password": "[redacted]"} and P end P', cut
    stream = StreamRedactor(Redactor([secret]))
    assert stream.feed(b"plain line\n") == b"plain line\n" and stream.feed(b"x Pw-") == b"x " \
        and stream.end() == b"Pw-"
