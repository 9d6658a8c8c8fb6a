"""Value normalization: equal spellings of one value match; different values never do."""

from __future__ import annotations

import pytest

from evaluator.normalize import same
from taskspec.volatile import name_reason, value_reason

EQUAL = [
    ("2026-12-31", "12/31/2026", "date"), ("Dec 31, 2026", "31 Dec 2026", "date"),
    ("Thursday, December 31st, 2026", "2026-12-31", "date"), ("Dec 31", "2026-12-31", "date"),
    ("2026-12-31T10:00:00Z", "2026-12-31T10:00:00+00:00", "datetime"),
    ("+1 (555) 123-4567", "555-123-4567", "phone"), ("555.123.4567", "5551234567", "phone"),
    ("1,200.50", 1200.5, "number"), ("$12", "12", "number"), ("2", 2, "number"),
    ("  Alex   DOE ", "alex doe", "text"), ("on", True, "bool"),
    ({"a": "X", "b": [1, "2"]}, {"a": "x ", "b": ["1", 2]}, "structure"),
]
DIFFERENT = [
    ("2026-12-31", "2026-12-30"), ("2026-12-31T10:00:00Z", "2026-12-31T18:00:00Z"), ("JFK", "LAX"),
    ("555-123-4567", "555-123-4568"), ("12", "2026-12-12"), ("1,200", "1,201"), (True, "false"),
    ({"a": 1}, {"a": 1, "b": 2}), ([1, 2], [2, 1]), ("economy", "economy plus"),
]


@pytest.mark.parametrize("a,b,how", EQUAL)
def test_equal(a, b, how):
    assert same(a, b) == (True, how)
    assert same(b, a)[0]


@pytest.mark.parametrize("a,b", DIFFERENT)
def test_different(a, b):
    assert same(a, b)[0] is False and same(b, a)[0] is False


def test_volatile_recognition():
    assert name_reason("csrf_token") and name_reason("form._wpnonce") and name_reason("request_id")
    assert not name_reason("email") and not name_reason("state") and not name_reason("destination")
    assert name_reason("body.blocks.0.key") and not name_reason("body.blocks.0.text")  # Draft.js (wagtail)
    assert value_reason("6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b") == "uuid"
    assert value_reason("c3ab8ff13720e8ad9047dd39466b3c89") == "long hex value"
    assert value_reason(1798700042) == "epoch timestamp" and value_reason("2026-12-31T10:00:00Z") == "timestamp"
    assert value_reason("2026-12-31") is None and value_reason("alex@example.com") is None
    assert value_reason("c3ab8ff13720e8ad9047dd39466b3c89", "resume.sha256") is None  # file hashes must match
    assert value_reason("the-clockwork-garden_1") is None and value_reason("small-boats-in-heavy-weather") is None
    assert value_reason("Zx9-kQ2_vT7pLm4-Ws8rYb") == "long token-like value"  # a base64url token stays volatile
