"""Which payload values differ between correct runs by nature (CSRF tokens, nonces, timestamps, generated ids).

ONE detector for annotate (which lists them as the spec's `volatile`) and the payload judge (which skips them and
says so). A spec names them explicitly (`volatile: [...]`); the rest are recognized by field name or by value shape.
A field named in `expect` is never skipped.
"""

from __future__ import annotations

import re
from typing import Any

from rundir.redact import csrf_name

_NAME = re.compile(
    r"(^|[_\-.\[])(csrf|xsrf|nonce|token|authenticity|captcha|recaptcha|signature|sig|hmac|idempotency|request_?id|"
    r"trace_?id|session_?id|sid|timestamp|ts|created_?at|updated_?at|client_?time|uuid|guid|_?wpnonce|"
    r"g-recaptcha-response|cf-turnstile-response)($|[_\-.\]])", re.I)
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
_HEX = re.compile(r"^[0-9a-f]{16,}$", re.I)
_B64 = re.compile(r"^[A-Za-z0-9+/_\-]{20,}={0,2}$")
_ISO_TS = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$")
# a human-readable slug, maybe with its object's id (Django's "the-clockwork-garden_1"): words, not a token; in a URL
# it names the object (a review of the wrong book is another slug), so it must be compared, never skipped
_SLUG = re.compile(r"^[a-z]+(?:-[a-z]+)+(?:[_-]\d+)?$")
# a Draft.js block's key (a rich-text editor's JSON: Wagtail's RichTextField posts {"blocks": [{"key": "sz6dh", ...}]}):
# random each time the editor loads, so two right runs never share it; the block's text and type are compared
_DRAFTJS_KEY = re.compile(r"(^|\.)blocks\.\d+\.key$")


def name_reason(path: str) -> str | None:
    """Why a field is volatile by its name (the last path segment), or None. A CSRF field (redacted in every run
    file by rundir/redact.py, so its value reads `[redacted]`) is volatile by its name alone."""
    leaf = path.rsplit(".", 1)[-1]
    if csrf_name(leaf):
        return f"CSRF token {leaf!r}"
    if _NAME.search(leaf):
        return f"token-like name {leaf!r}"
    if _DRAFTJS_KEY.search(path):
        return "Draft.js block key (random per editor load)"
    return None


# content hashes and sizes of uploaded files must match, even though they look like tokens
_CONTENT_KEYS = {"sha256", "sha1", "md5", "size", "filename", "content_type", "name", "field"}


def value_reason(value: Any, path: str = "") -> str | None:
    """Why a value looks generated (uuid, long hex/base64, epoch or ISO timestamp with seconds), or None."""
    if path.rsplit(".", 1)[-1].lower() in _CONTENT_KEYS:
        return None
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        v = float(value)
        if 1e9 <= v < 2.5e9 or 1e12 <= v < 2.5e12:
            return "epoch timestamp"
        return None
    if not isinstance(value, str):
        return None
    s = value.strip()
    if _UUID.match(s):
        return "uuid"
    if _HEX.match(s):
        return "long hex value"
    if _ISO_TS.match(s):
        return "timestamp"
    if re.fullmatch(r"\d{10}|\d{13}", s) and value_reason(int(s)):
        return "epoch timestamp"
    if _SLUG.match(s):
        return None
    if _B64.match(s) and re.search(r"[A-Za-z]", s) and re.search(r"\d", s) and not re.search(r"\s", s):
        return "long token-like value"
    return None


def reason(path: str, value: Any) -> str | None:
    """Why a payload field differs between correct runs by nature (its name, else its value's shape), or None."""
    return name_reason(path) or value_reason(value, path)
