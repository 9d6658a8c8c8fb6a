"""social: the composer's XHR post, comments over the WebSocket, the share popup's POST."""

from __future__ import annotations

import json

from tests.sites.conftest import assert_expect, load_spec, payload, since


def test_social_status_update_end_to_end(sites, drive_site):
    spec = load_spec("social-status-update")
    start, _ = drive_site("social", spec["user"])
    post = sites.wait_for(lambda r: r["t"] >= start and r["method"] == "POST" and r["path"] == "/api/posts",
                          timeout=15)
    assert post["headers"].get("X-Requested-With") == "XMLHttpRequest"
    assert_expect(payload(post), spec["expect"])

    recs = since(sites.records(), start, "social")
    ws = [json.loads(r["ws"]["data"]) for r in recs if r["method"] == "WS"]
    assert all(r["ws"]["direction"] == "in" for r in recs if r["method"] == "WS")
    assert ws[0]["type"] == "hello"
    comment = next(m for m in ws if m["type"] == "comment")
    assert comment == {"type": "comment", "post_id": "p101", "text": "Congratulations, Maria!", "ref": "r1"}
    comment_rec = next(r for r in recs if r["method"] == "WS" and '"comment"' in r["ws"]["data"])
    assert comment_rec["t"] < post["t"]
    paths = {(r["method"], r["path"]) for r in recs}
    assert {("GET", "/"), ("GET", "/ws"), ("GET", "/api/feed"), ("GET", "/api/ping")} <= paths
    assert any(p.startswith("/avatar/") for _, p in paths)


def test_social_share_from_popup(sites, drive_site):
    spec = load_spec("social-share-post")
    start, _ = drive_site("social-share", spec["user"])
    share = sites.wait_for(lambda r: r["t"] >= start and r["method"] == "POST" and r["path"] == "/api/shares",
                           timeout=15)
    assert_expect(payload(share), spec["expect"])
    assert "/share?post=p102" in share["headers"].get("Referer", "")  # sent from the popup
    assert any(r["path"] == "/share" and r["query"] == {"post": ["p102"]} for r in since(sites.records(), start, "social"))
