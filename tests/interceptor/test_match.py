"""Pure matcher and decoder tests (no browser)."""

from __future__ import annotations

import hashlib
import json

import pytest

from interceptor import narrow
from taskspec import match, payload
from taskspec.model import Rule


def rule(**kw) -> Rule:
    return Rule(index=0, **kw)


def body(data, ctype="application/json") -> payload.Body:
    raw = json.dumps(data).encode() if not isinstance(data, (bytes, str)) else (
        data.encode() if isinstance(data, str) else data)
    return payload.decode(raw, ctype)


def test_glob_segments_and_query():
    r = rule(url="http://h/api/*/book*")
    assert match.could_match(r, "POST", "http://h/api/v1/bookings?x=1")
    assert not match.could_match(r, "POST", "http://h/api/v1/x/bookings")
    assert match.could_match(rule(url="http://h/**/book"), "GET", "http://h/a/b/c/book")


def test_regex_is_anchored():
    r = rule(url_regex=r"http://h/api/pay/\d+")
    assert match.could_match(r, "POST", "http://h/api/pay/12")
    assert not match.could_match(r, "POST", "http://evil/?u=http://h/api/pay/12")


def test_methods_fields_equals_loose_types():
    r = rule(url="http://h/s", methods=("POST", "PUT"), fields=("passengers.0.email",), equals={"n": 2, "ok": True})
    good = body({"passengers": [{"email": "a@b"}], "n": 2, "ok": True})
    assert match.matches(r, "PUT", "http://h/s", good)
    assert not match.matches(r, "GET", "http://h/s", good)
    form = payload.decode(b"passengers[0][email]=a%40b&n=2&ok=true", "application/x-www-form-urlencoded")
    assert match.matches(r, "POST", "http://h/s", form)
    assert not match.matches(r, "POST", "http://h/s", body({"passengers": [], "n": 2, "ok": True}))
    assert not match.matches(r, "POST", "http://h/s", body({"passengers": [{"email": 1}], "n": 3, "ok": True}))


def test_batched_graphql_any_element():
    r = rule(url="http://h/graphql", equals={"operationName": "Rate"})
    assert match.matches(r, "POST", "http://h/graphql", body([{"operationName": "Q"}, {"operationName": "Rate"}]))
    assert not match.matches(r, "POST", "http://h/graphql", body([{"operationName": "Q"}]))


def test_get_rule_with_query_and_fields_from_query():
    r = rule(url="http://h/search", methods=("GET",), query={"q": "shoes"}, fields=("page",))
    assert match.matches(r, "GET", "http://h/search?q=shoes&page=2", payload.decode(b""))
    assert not match.matches(r, "GET", "http://h/search?q=hats&page=2", payload.decode(b""))


def test_json_string_inside_form_is_descended():
    r = rule(url="http://h/g", equals={"variables.input.id": "7"})
    form = payload.decode(b"variables=%7B%22input%22%3A%7B%22id%22%3A7%7D%7D", "application/x-www-form-urlencoded")
    assert match.matches(r, "POST", "http://h/g", form)


def test_multipart_file_parts(tmp_path):
    known = tmp_path / "cv.pdf"
    known.write_bytes(b"PDFDATA")
    b = b"--XX\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nAlex\r\n" \
        b"--XX\r\nContent-Disposition: form-data; name=\"cv\"; filename=\"cv.pdf\"\r\nContent-Type: application/pdf" \
        b"\r\n\r\n%s\r\n--XX\r\nContent-Disposition: form-data; name=\"other\"; filename=\"x.bin\"\r\n\r\n%s\r\n--XX--\r\n"
    full = payload.decode(b % (b"PDFDATA", b"abc"), "multipart/form-data; boundary=XX")
    assert full.value["name"] == "Alex"
    assert full.value["cv"]["sha256"] == hashlib.sha256(b"PDFDATA").hexdigest() and full.value["cv"]["size"] == 7
    gap = payload.decode(b % (payload.GAP, payload.GAP), "multipart/form-data; boundary=XX", [known], False)
    assert gap.value["cv"]["source"] == "task_files" and gap.value["cv"]["size"] == 7
    assert gap.value["other"]["bytes_unavailable"] is True
    assert match.matches(rule(url="http://h/u", fields=("cv", "name")), "POST", "http://h/u", gap)


def test_entries_without_bytes_mark_the_gap():
    raw, complete = payload.entries_bytes({"postDataEntries": [{"bytes": "YQ=="}, {}, {"bytes": "Yg=="}]})
    assert raw == b"a" + payload.GAP + b"b" and complete is False


def test_websocket_rule():
    r = rule(url="ws://h/ws", equals={"type": "send"})
    assert r.is_websocket
    assert match.websocket_message_matches(r, "ws://h/ws", '{"type": "send"}')
    assert not match.websocket_message_matches(r, "ws://h/ws", '{"type": "ping"}')
    assert not match.could_match(r, "GET", "ws://h/ws")


@pytest.mark.parametrize("rules,expected", [
    ([rule(url="http://h:1/api/book*")], ["http://h:1/api/book*"]),
    ([rule(url="http://h:1/a/*/b"), rule(url="http://h:1/a/*/b")], ["http://h:1/a/*"]),
    ([rule(url_regex="http://h/x")], ["http://h/x*"]),
    ([rule(url_regex=r"^https://h\.io:8/api/orders(\?.*)?")], ["https://h.io:8/api/orders*"]),
    ([rule(url_regex=r"http://h/s?x")], ["http://h/*"]),
    ([rule(url_regex=r"http://h/a\?b=1")], ["http://h/a*"]),
    ([rule(url_regex=r"(?i)http://h/x")], ["*"]),
    ([rule(url_regex=r"https?://h/x")], ["*"]),
    ([rule(url_regex=r"http://h/x|http://g/y")], ["*"]),
    ([rule(url_regex=r"[a-z]+://h/x")], ["*"]),
    ([rule(url="*://h/x")], ["*"]),
    ([rule(url="http://H/x")], ["*"]),
    ([rule(url="ws://h/ws")], []),
])
def test_fetch_patterns_are_safe_supersets(rules, expected):
    assert [p["urlPattern"] for p in narrow.fetch_patterns(rules)] == expected


def test_password_masking_is_narrow():
    from interceptor.httplog import scrub
    from rundir.redact import mask_fields as mask_passwords, secret_values as password_values

    body = {"passengers": [{"name": "Alex"}], "passport": "X1", "newPassword": "hunter22", "pass": "p4ss",
            "user": {"pwd": "s3cret"}}
    masked = mask_passwords(body)
    assert masked["passengers"] == [{"name": "Alex"}] and masked["passport"] == "X1"
    assert masked["newPassword"] == masked["pass"] == masked["user"]["pwd"] == "[redacted]"
    assert scrub("a=hunter22&b=s3cret", password_values(body)) == "a=[redacted]&b=[redacted]"
