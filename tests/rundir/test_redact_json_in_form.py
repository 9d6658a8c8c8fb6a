"""JSON inside a form field, redacted by the same key policy (rundir/redact.py `json_in`): Salesforce Aura posts
`message=<JSON {actions:[…]}>&aura.context=…&aura.pageURI=…&aura.token=…` (the stand-in's body, built here as its
page script builds it: tests/support/salesforce_lightning.py). A Lightning login action carries the password inside
`message`; before, only the top-level `aura.token` was masked and the password stayed in the decoded body's
`message` string and in every raw copy (interceptions.jsonl `raw`, the archive's request body)."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlencode

from interceptor.httplog import body_record, scrub
from rundir.records import JsonlWriter, read_jsonl
from rundir.redact import REDACTED, Redactor, mask_fields, secret_values
from taskspec import payload
from taskspec.salesforce_save import record_value
from tests.support.salesforce_lightning import CREATE

AURA_TOKEN = "eyJub25jZSI6Xq3vT0kEnAbC-dEf_9"  # the stand-in's token shape ("eyJub25jZSI6" + token_urlsafe)
PASSWORD = "Lightning-Pw-77q"
SESSION = "00D5g000004Xyz!AQ0Aq.sess"
LOGIN = "apex://LightningLoginFormController/ACTION$login"


def aura_body(actions: list[dict]) -> bytes:
    """As the stand-in's `aura()` sends it: JSON.stringify (compact) in a URLSearchParams form."""
    message = json.dumps({"actions": actions}, separators=(",", ":"))
    context = json.dumps({"mode": "PROD", "app": "one:one", "fwuid": "c3RhbmQtaW4"}, separators=(",", ":"))
    return urlencode({"message": message, "aura.context": context, "aura.pageURI": "/lightning/o/Lead/new",
                      "aura.token": AURA_TOKEN}).encode()


def test_aura_message_is_redacted_by_key_and_its_other_fields_kept(tmp_path):
    body = aura_body([
        {"id": "1;a", "descriptor": LOGIN, "callingDescriptor": "UNKNOWN",
         "params": {"username": "ada@analytical.example", "password": PASSWORD, "startUrl": "/lightning/page/home",
                    "session": {"accessToken": SESSION}}},
        {"id": "2;a", "descriptor": CREATE, "callingDescriptor": "UNKNOWN",
         "params": {"recordInput": {"allowSaveOnDuplicate": False, "apiName": "Lead",
                                    "fields": {"LastName": "Lovelace", "Company": "Acme"}}}}])
    decoded = payload.decode(body, "application/x-www-form-urlencoded;charset=UTF-8")
    assert decoded.kind == "urlencoded"
    assert sorted(secret_values(decoded.value)) == sorted([PASSWORD, SESSION, AURA_TOKEN])

    # http.jsonl's body (through the one JsonlWriter), interceptions.jsonl's decoded body and raw copy
    writer = JsonlWriter(tmp_path / "http.jsonl", redactor=Redactor())
    writer.write({"type": "request", "body": body_record(decoded, len(body))})
    writer.write({"body": mask_fields(decoded.value), "raw": scrub(decoded.raw_text(), secret_values(decoded.value))})
    writer.close()
    text = (tmp_path / "http.jsonl").read_text()
    for secret in (PASSWORD, SESSION, AURA_TOKEN):
        assert secret not in text
    (http, caught), bad = read_jsonl(tmp_path / "http.jsonl")
    assert not bad
    masked = http["body"]["value"]
    assert masked["aura.token"] == REDACTED and masked == caught["body"]
    actions = json.loads(masked["message"])["actions"]
    assert actions[0]["params"] == {"username": "ada@analytical.example", "password": REDACTED,
                                    "startUrl": "/lightning/page/home", "session": {"accessToken": REDACTED}}
    assert actions[1] == {"id": "2;a", "descriptor": CREATE, "callingDescriptor": "UNKNOWN", "params": {
        "recordInput": {"allowSaveOnDuplicate": False, "apiName": "Lead",
                        "fields": {"LastName": "Lovelace", "Company": "Acme"}}}}
    # the raw copy is still the form as sent, only the secret values replaced
    raw = parse_qs(caught["raw"])
    assert json.loads(raw["message"][0])["actions"][0]["params"]["password"] == REDACTED
    assert raw["aura.pageURI"] == ["/lightning/o/Lead/new"] and raw["aura.token"] == [REDACTED]


def test_a_save_without_secrets_keeps_its_message_string_byte_for_byte():
    """The judge reads the caught save from `message` (taskspec/salesforce_save.py): untouched when it holds no
    secret field, and still readable when it does."""
    save = {"id": "1;a", "descriptor": CREATE, "callingDescriptor": "UNKNOWN",
            "params": {"recordInput": {"allowSaveOnDuplicate": False, "apiName": "Lead",
                                       "fields": {"LastName": "Lovelace", "Company": "Acme"}}}}
    value = payload.decode(aura_body([save]), "application/x-www-form-urlencoded").value
    masked = mask_fields(value)
    assert masked["message"] == value["message"] and masked["aura.token"] == REDACTED
    assert record_value(masked, "LastName") == "Lovelace"


def test_strings_that_only_look_like_json_are_left_alone():
    for text in ("{not json, token here}", "[token]", '{"note": "no secret name"}', '"token"'):
        assert mask_fields({"f": text}) == {"f": text} and secret_values({"f": text}) == []
    nested = json.dumps({"data": json.dumps({"otp": "482913"})})  # JSON in a JSON string in a form field
    assert secret_values({"message": nested}) == ["482913"]
    assert "482913" not in json.dumps(mask_fields({"message": nested}))


def test_json_nested_in_strings_many_levels_deep_cannot_exhaust_the_stack():
    """A hostile body: 100-deep JSON in a string, in 100-deep JSON in a string, … (each level within the record
    depth limit): looked into three levels, never a RecursionError."""
    text = json.dumps({"token": "t0k-deepest"})
    for _ in range(8):
        text = json.dumps({"a": "[" * 118 + json.dumps({"data": text}) + "]" * 118})
    assert isinstance(mask_fields({"message": text}), dict) and secret_values({"message": text}) == []
