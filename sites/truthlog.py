"""The server-side truth log: one JSONL record per request and per received WebSocket message.

Why: every later test takes what the server received as the truth of what left the browser, so each record is
written and flushed at once, secrets in headers are redacted, and bodies are kept whole when small and textual
(always with their size and sha256, so large or binary uploads can still be compared).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from pathlib import Path
from typing import Any

MAX_TEXT_BODY = 64 * 1024
REDACTED_HEADERS = {"cookie", "authorization", "proxy-authorization", "set-cookie"}
# Secrets typed into forms are masked in logged bodies (body_sha256 still covers the bytes really sent).
SECRET_KEY = r"(?:password|passwd|new_password|cvc|cvv|card(?:\[|%5B)(?:number|cvc)(?:\]|%5D))"
MASK = "[masked]"
_FORM_SECRET = re.compile(rf"(^|&)({SECRET_KEY})=([^&]*)", re.IGNORECASE)
_JSON_SECRET = re.compile(rf'("{SECRET_KEY}"\s*:\s*)"(?:[^"\\]|\\.)*"', re.IGNORECASE)
TEXTUAL_TYPES = ("text/", "application/json", "application/x-www-form-urlencoded", "application/graphql",
                 "application/xml", "application/csp-report", "+json", "+xml")


def redact_headers(headers: Any) -> dict[str, str]:
    """Header dict with cookie/authorization values replaced (the log holds personal data)."""
    out: dict[str, str] = {}
    for name, value in headers.items():
        out[name] = "[redacted]" if name.lower() in REDACTED_HEADERS else value
    return out


def mask_secrets(text: str) -> str:
    """Replace password / card values in urlencoded or JSON text with "[masked]"."""
    text = _FORM_SECRET.sub(lambda m: f"{m.group(1)}{m.group(2)}={MASK}", text)
    return _JSON_SECRET.sub(lambda m: f'{m.group(1)}"{MASK}"', text)


def is_textual(content_type: str) -> bool:
    ct = (content_type or "").lower()
    return any(marker in ct for marker in TEXTUAL_TYPES)


def multipart_boundary(content_type: str) -> bytes | None:
    for piece in (content_type or "").split(";")[1:]:
        key, _, value = piece.strip().partition("=")
        if key.lower() == "boundary":
            return value.strip('"').encode()
    return None


def parse_multipart(body: bytes, content_type: str) -> list[dict[str, Any]]:
    """Split a multipart/form-data body into parts: name, filename, content_type, data (bytes).

    Written by hand because aiohttp's reader consumes the stream, and the log has already read it.
    """
    boundary = multipart_boundary(content_type)
    if not boundary:
        return []
    parts = []
    for chunk in body.split(b"--" + boundary)[1:]:
        if chunk.startswith(b"--"):
            break
        chunk = chunk[2:] if chunk.startswith(b"\r\n") else chunk
        head, _, data = chunk.partition(b"\r\n\r\n")
        if data.endswith(b"\r\n"):
            data = data[:-2]
        part: dict[str, Any] = {"name": None, "filename": None, "content_type": None, "data": data}
        for line in head.decode("utf-8", "replace").split("\r\n"):
            key, _, value = line.partition(":")
            if key.strip().lower() == "content-disposition":
                for item in value.split(";")[1:]:
                    k, _, v = item.strip().partition("=")
                    if k in ("name", "filename"):
                        part[k] = v.strip('"')
            elif key.strip().lower() == "content-type":
                part["content_type"] = value.strip()
        parts.append(part)
    return parts


def describe_parts(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Log view of multipart parts: text values inline, files by size and sha256."""
    out = []
    for p in parts:
        d = {"name": p["name"], "filename": p["filename"], "content_type": p["content_type"],
             "size": len(p["data"]), "sha256": hashlib.sha256(p["data"]).hexdigest()}
        if p["filename"] is None and len(p["data"]) <= MAX_TEXT_BODY:
            secret = re.fullmatch(SECRET_KEY, p["name"] or "", re.IGNORECASE)
            d["value"] = MASK if secret else p["data"].decode("utf-8", "replace")
        out.append(d)
    return out


def body_fields(body: bytes, content_type: str) -> dict[str, Any]:
    """The body part of a record: size + sha256 always; text when textual and small; parts when multipart."""
    fields: dict[str, Any] = {"body_size": len(body), "body_sha256": hashlib.sha256(body).hexdigest()}
    if not body:
        return fields
    if "multipart/form-data" in (content_type or "").lower():
        fields["parts"] = describe_parts(parse_multipart(body, content_type))
    elif len(body) <= MAX_TEXT_BODY and (is_textual(content_type) or not content_type):
        try:
            fields["body"] = mask_secrets(body.decode("utf-8"))
        except UnicodeDecodeError:
            pass
    return fields


class TruthLog:
    """Append-only JSONL writer shared by every site server; thread-safe, flushed per record."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._fh = open(self.path, "a", encoding="utf-8")

    def write(self, record: dict[str, Any]) -> None:
        record.setdefault("t", time.time())
        line = json.dumps(record, ensure_ascii=False, sort_keys=False) + "\n"
        with self._lock:
            self._fh.write(line)
            self._fh.flush()

    def clear(self) -> None:
        with self._lock:
            self._fh.truncate(0)
            self._fh.seek(0)
            self._fh.flush()

    def close(self) -> None:
        with self._lock:
            self._fh.close()


def read_records(path: Path) -> list[dict[str, Any]]:
    """All complete records (a line still being written at the end is skipped)."""
    out = []
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return out
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return out
