"""A request archived with a secret field `[redacted]` (a CSRF token: rundir/redact.py writes every run file that
way) is still answered on replay, where the page sends the token it was served: the normalized tier ignores the
fields archived redacted, in forms (raw or URL-encoded), JSON and the query, and nothing else."""

from __future__ import annotations

from datetime import datetime, timezone

from archive.index import ReplayIndex
from archive.warc import ARCHIVE, WarcFile, read_warc

BASE = "http://127.0.0.1:8123"
FORM = [("Content-Type", "application/x-www-form-urlencoded")]
JSON = [("Content-Type", "application/json")]


def test_fields_archived_redacted_are_ignored_by_the_normalized_tier(tmp_path):
    path = tmp_path / ARCHIVE
    w = WarcFile(path)
    t0 = datetime(2026, 12, 1, 9, 30, tzinfo=timezone.utc)
    w.exchange("POST", f"{BASE}/basket/add/", FORM, b"csrfmiddlewaretoken=[redacted]&quantity=2", 303, "See Other",
               [("Location", "/basket/")], b"", date=t0)
    w.exchange("POST", f"{BASE}/checkout/", FORM, b"_csrf=%5Bredacted%5D&email=a%40b.c", 303, "See Other",
               [("Location", "/checkout/preview/")], b"", date=t0)
    w.exchange("POST", f"{BASE}/api/cart", JSON, b'{"meta": {"_token": "[redacted]"}, "item": 7}', 200, "OK", JSON,
               b'{"ok": 1}', date=t0)
    w.exchange("GET", f"{BASE}/search?q=mug&csrf_token=[redacted]", [], b"", 200, "OK", JSON, b'{"hits": 1}',
               date=t0)
    w.close()
    idx = ReplayIndex(read_warc(path).exchanges)
    form = {"content-type": "application/x-www-form-urlencoded"}
    hit = idx.lookup("POST", f"{BASE}/basket/add/", form, b"csrfmiddlewaretoken=Zx81kQ&quantity=2")
    assert (hit.tier, hit.exchange.status) == ("normalized", 303)
    assert idx.lookup("POST", f"{BASE}/checkout/", form, b"_csrf=Qq1&email=a%40b.c").tier == "normalized"
    hit = idx.lookup("POST", f"{BASE}/api/cart", {"content-type": "application/json"},
                     b'{"meta": {"_token": "T0k"}, "item": 7}')
    assert hit.tier == "normalized" and hit.exchange.body == b'{"ok": 1}'
    assert idx.lookup("GET", f"{BASE}/search?q=mug&csrf_token=abc").tier == "normalized"
    # only the redacted fields are ignored: another quantity, item or e-mail is another request
    assert idx.lookup("POST", f"{BASE}/basket/add/", form, b"csrfmiddlewaretoken=Zx81kQ&quantity=3").tier == "miss"
    assert idx.lookup("POST", f"{BASE}/checkout/", form, b"_csrf=Qq1&email=x%40b.c").tier == "miss"
    assert idx.lookup("POST", f"{BASE}/api/cart", {"content-type": "application/json"},
                      b'{"meta": {"_token": "T0k"}, "item": 8}').tier == "miss"
