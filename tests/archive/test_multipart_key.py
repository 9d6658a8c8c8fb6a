"""The replay index's normalized tier compares a multipart/form-data body by its fields, not its bytes: the boundary
is random per request (found replaying pretix tasks: the cart add, an XHR FormData POST, missed every replay, so
the replayed buyer never got a cart), and a CSRF token archived as [redacted] is ignored as in urlencoded forms."""

from __future__ import annotations

from archive.index import ReplayIndex
from archive.keys import normalized_key, redacted_fields
from archive.warc import Exchange

URL = "http://127.0.0.1:5000/demo/conf2026/cart/add?next=/demo/conf2026/"


def _form(boundary: str, fields: dict[str, str], upload: bytes | None = None) -> tuple[str, bytes]:
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n' for k, v in fields.items()]
    body = "".join(parts).encode()
    if upload is not None:
        body += (f'--{boundary}\r\nContent-Disposition: form-data; name="photo"; filename="a.png"\r\n'
                 f"Content-Type: image/png\r\n\r\n").encode() + upload + b"\r\n"
    return f"multipart/form-data; boundary={boundary}", body + f"--{boundary}--\r\n".encode()


def test_the_boundary_does_not_tell_requests_apart_but_a_field_does():
    a = normalized_key("POST", URL, *_form("----WebKitFormBoundaryAAAA", {"item_2": "3", "ajax": "1"}), frozenset())
    b = normalized_key("POST", URL, *_form("----WebKitFormBoundaryBBBB", {"item_2": "3", "ajax": "1"}), frozenset())
    c = normalized_key("POST", URL, *_form("----WebKitFormBoundaryCCCC", {"item_2": "2", "ajax": "1"}), frozenset())
    assert a == b and a != c
    png = normalized_key("POST", URL, *_form("x1", {}, b"\x89PNG\x00\xff"), frozenset())
    assert png == normalized_key("POST", URL, *_form("x2", {}, b"\x89PNG\x00\xff"), frozenset())
    assert png != normalized_key("POST", URL, *_form("x3", {}, b"\x89PNG\x00\xfe"), frozenset())


def test_an_archived_cart_add_answers_the_replayed_one():
    ctype, archived = _form("----WebKitFormBoundaryAAAA", {"csrfmiddlewaretoken": "[redacted]", "item_2": "3"})
    assert redacted_fields(URL, ctype, archived) == {"csrfmiddlewaretoken"}
    ex = Exchange("POST", URL, [("Content-Type", ctype)], archived, 200, "OK", [], b'{"async_id": "x"}', None)
    index = ReplayIndex([ex])
    sent_type, sent = _form("----WebKitFormBoundaryZZZZ", {"csrfmiddlewaretoken": "tok123", "item_2": "3"})
    hit = index.lookup("POST", URL, {"Content-Type": sent_type}, sent)
    assert hit.tier == "normalized" and hit.exchange is ex
    other_type, other = _form("----WebKitFormBoundaryYYYY", {"csrfmiddlewaretoken": "tok123", "item_2": "9"})
    assert index.lookup("POST", URL, {"Content-Type": other_type}, other).tier != "normalized"
