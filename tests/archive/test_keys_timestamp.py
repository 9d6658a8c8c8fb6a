"""The replay index's normalized tier drops a query value that holds the page's clock in ms under any name
(Roundcube's `_unlock=loading<epoch ms>` on its draft-save POST: found replaying webmail-draft-send, where that POST
missed and the send lost its draft id); any other value of the same field still tells requests apart."""

from __future__ import annotations

from archive.keys import normalized_key

URL = "http://127.0.0.1:5000/?_task=mail&_unlock=loading{}&_framed=1"
FORM = "application/x-www-form-urlencoded"


def test_a_clock_value_in_the_query_is_ignored():
    a = normalized_key("POST", URL.format(1795916065827), FORM, b"_action=send&_draft=1", frozenset())
    b = normalized_key("POST", URL.format(1795916123456), FORM, b"_action=send&_draft=1", frozenset())
    assert a == b


def test_other_values_still_tell_requests_apart():
    a = normalized_key("POST", URL.format("x1"), FORM, b"", frozenset())
    b = normalized_key("POST", URL.format("x2"), FORM, b"", frozenset())
    assert a != b
    short = normalized_key("GET", "http://h/?id=179591606582", "", b"", frozenset())  # 12 digits: an id, kept
    assert short != normalized_key("GET", "http://h/?id=179591606583", "", b"", frozenset())
    body_a = normalized_key("POST", URL.format(1795916065827), FORM, b"_draft=1", frozenset())
    assert body_a != normalized_key("POST", URL.format(1795916065827), FORM, b"_draft=", frozenset())


def test_a_multipart_body_the_indexer_cannot_parse_still_has_a_key():
    """Found replaying misago-reply-photo: the archived photo upload's multipart body made cdxj-indexer raise, and
    the whole replay crashed before its run directory existed."""
    from archive.keys import cdxj_key

    key = cdxj_key("POST", "http://127.0.0.1:5000/api/posts/", "multipart/form-data; boundary=xyz",
                   b"--xyz\r\nContent-Disposition: form-data; name=\"upload\"\r\n\r\nabc")
    assert key.startswith("POST ") and "__wb_method=post" in key
