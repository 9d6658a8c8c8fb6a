"""The redaction walk decides each record key once (rundir/redact.py `Redactor._key`); these pin that the cached
decision never outlives the secret values it was made with, and that per-value rules still look at each value."""

from rundir.redact import REDACTED, Redactor


def test_a_value_learnt_later_is_scrubbed_from_a_key_seen_before() -> None:
    red = Redactor()
    assert red.record({"sk-live-999": 1}) == {"sk-live-999": 1}
    red.add(["sk-live-999"])
    assert red.record({"sk-live-999": 1}) == {REDACTED: 1}


def test_a_bare_code_key_is_decided_by_each_value() -> None:
    red = Redactor()
    assert red.record({"code": "123456"}) == {"code": REDACTED}
    assert red.record({"code": "SAVE10"}) == {"code": "SAVE10"}
    assert red.record({"code": 4821}) == {"code": REDACTED}


def test_secret_names_numbers_and_nested_values() -> None:
    red = Redactor(["hunter22"])
    rec = {"password": 5, "remember": True, "n": None, "timing": {"sendStart": 1.5}, "pin": "",
           "note": "pw hunter22", "items": [{"apiKey": "v"}, "x=hunter22"], 3: "hunter22"}
    assert red.record(rec) == {"password": REDACTED, "remember": True, "n": None, "timing": {"sendStart": 1.5},
                               "pin": "", "note": f"pw {REDACTED}", "items": [{"apiKey": REDACTED}, f"x={REDACTED}"],
                               3: REDACTED}


def test_many_distinct_keys_stay_bounded() -> None:
    red = Redactor()
    for i in range(10_000):
        red.record({f"field{i}": i})
    assert len(red._keys) <= 4097
    assert red.record({"api_key": "v"}) == {"api_key": REDACTED}
