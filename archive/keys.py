"""The lookup keys of a replay, one per tier: exact (method, URL, body), the pywb/cdxj key (SURT of the URL with the
POST body folded into its query, as cdxj-indexer makes it), normalized (cache-busters and volatile fields dropped
from the query and the body), and the same-path key the nearest-URL tier searches in."""

from __future__ import annotations

import email
import hashlib
import json
import re
from io import BytesIO
from typing import Any, Iterable
from urllib.parse import parse_qsl, quote_plus, urlencode, urlsplit

import surt
from cdxj_indexer.postquery import append_method_query

CACHE_BUSTERS = frozenset({"_", "ts", "timestamp", "cb", "t", "nocache", "cachebuster", "rnd", "rand"})
BODY_METHODS = ("POST", "PUT", "PATCH")
# A query value holding the page's clock in ms (Roundcube's `_unlock=loading1795916065827`) is a cache-buster under
# any name: a replay's clock has moved on, so its draft-save POST missed and the send lost its draft id.
EPOCH_MS = re.compile(r"(?<!\d)1\d{12}(?!\d)")


def exact_key(method: str, url: str, body: bytes) -> tuple[str, str, bytes]:
    return (method.upper(), url.split("#", 1)[0], body or b"")


def cdxj_key(method: str, url: str, content_type: str, body: bytes) -> str:
    """The key pywb looks a capture up by: SURT(url + `__wb_method=post&<body as query>`) (GET: SURT(url))."""
    url = url.split("#", 1)[0]
    method = method.upper()
    if method != "GET":
        try:
            _query, append = append_method_query(method, content_type or "", str(len(body or b"")),
                                                 BytesIO(body or b""), url)
        except Exception:  # a multipart body cdxj-indexer cannot parse (misago's photo upload): key without it
            append = f"{'&' if '?' in url else '?'}__wb_method={method.lower()}"
        url += append
    try:
        return f"{method} {surt.surt(url)}"
    except Exception:  # surt refuses a few odd URLs: the raw URL is still a key
        return f"{method} {url}"


def _drop(pairs: Iterable[tuple[str, str]], ignore: frozenset[str]) -> list[tuple[str, str]]:
    return sorted((k, v) for k, v in pairs if k.lower() not in ignore and k not in ignore)


def _strip_json(value: Any, ignore: frozenset[str]) -> Any:
    if isinstance(value, dict):
        return {k: _strip_json(v, ignore) for k, v in value.items() if k not in ignore and k.lower() not in ignore}
    if isinstance(value, list):
        return [_strip_json(v, ignore) for v in value]
    return value


REDACTED = "[redacted]"  # what the run's redaction policy writes in place of a secret (rundir/redact.py)


def redacted_fields(url: str, content_type: str, body: bytes) -> set[str]:
    """Names of the query parameters and body fields (JSON at any depth, urlencoded forms) a recorded request holds
    as `[redacted]`. Why: a secret-named field (a CSRF token, a password) is archived redacted while a replayed page
    sends the value it was served; the normalized tier ignores such fields, as it ignores the spec's volatile ones."""
    found = {k for k, v in parse_qsl(urlsplit(url).query, keep_blank_values=True) if v == REDACTED}
    found |= {k for k, v in multipart_pairs(body, content_type) or () if v == REDACTED}
    if not body or REDACTED.encode() not in body and quote_plus(REDACTED).encode() not in body:
        return found
    text = body.decode("utf-8", "replace")
    if "json" in (content_type or "").lower() or text[:1] in "{[":
        try:
            _redacted_json(json.loads(text), found)
            return found
        except ValueError:
            pass
    return found | {k for k, v in parse_qsl(text, keep_blank_values=True) if v == REDACTED}


def _redacted_json(value: Any, found: set[str]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            if v == REDACTED:
                found.add(k)
            else:
                _redacted_json(v, found)
    elif isinstance(value, list):
        for v in value:
            _redacted_json(v, found)


def multipart_pairs(body: bytes, content_type: str) -> list[tuple[str, str]] | None:
    """A multipart/form-data body as (name, value) pairs (a file: "filename:size:sha1"), None if it is not one.
    Why: its boundary is random per request (pretix's cart add, sent by XHR as FormData, never matched in a
    replay: each tier compared the boundary), so the normalized tier compares the fields instead."""
    if "multipart/form-data" not in (content_type or "").lower() or not body:
        return None
    msg = email.message_from_bytes(b"Content-Type: " + content_type.encode("latin-1", "replace") + b"\r\n\r\n" + body)
    if not msg.is_multipart():
        return None
    pairs = []
    for part in msg.get_payload():
        name, data = part.get_param("name", header="content-disposition"), part.get_payload(decode=True) or b""
        if name is None:
            continue
        filename = part.get_filename()
        value = data.decode("utf-8", "replace") if filename is None else \
            f"{filename}:{len(data)}:{hashlib.sha1(data).hexdigest()}"
        pairs.append((str(name), value))
    return pairs


def normalized_body(body: bytes, content_type: str, ignore: frozenset[str]) -> bytes:
    """The body with `ignore` fields removed: JSON (at any depth), urlencoded and multipart forms; other bodies as
    they are."""
    if not body:
        return b""
    low = (content_type or "").lower()
    fields = multipart_pairs(body, content_type)
    if fields is not None:
        return urlencode(_drop(fields, ignore)).encode()
    text = body.decode("utf-8", "replace")
    if "json" in low or text[:1] in "{[":
        try:
            return json.dumps(_strip_json(json.loads(text), ignore), sort_keys=True).encode()
        except ValueError:
            pass
    if "x-www-form-urlencoded" in low or ("=" in text and " " not in text and "\n" not in text):
        return urlencode(_drop(parse_qsl(text, keep_blank_values=True), ignore)).encode()
    return body


def normalized_key(method: str, url: str, content_type: str, body: bytes,
                   volatile: frozenset[str]) -> tuple[str, str, str, bytes]:
    """(method, scheme://host/path, query without cache-busters/volatile fields, body without volatile fields)."""
    ignore = CACHE_BUSTERS | volatile
    parts = urlsplit(url)
    pairs = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not EPOCH_MS.search(v)]
    query = urlencode(_drop(pairs, ignore))
    return (method.upper(), f"{parts.scheme}://{parts.netloc}{parts.path}", query,
            normalized_body(body, content_type, volatile))


def path_key(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"


def query_pairs(url: str) -> set[tuple[str, str]]:
    return set(parse_qsl(urlsplit(url).query, keep_blank_values=True))
