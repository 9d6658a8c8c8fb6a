"""Pure request-body decoders: JSON (a list = batched GraphQL), urlencoded, multipart (file parts named, sized and
hashed), text. No browser, no I/O except hashing the task's own files.

Why our own multipart parser: Chrome hands the body as `postDataEntries` chunks and leaves a chunk WITHOUT bytes for
a file it streams from disk (measured: 294 B visible of 100,303 B sent); a stdlib/email parser cannot mark that gap.
We splice a sentinel into the gap, so a file part is reported as `bytes_unavailable` or filled in from the task's
`files` when the file name matches.
"""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from taskspec.limits import MAX_DECODE_BYTES, MAX_FORM_FIELDS, TOO_DEEP, TOO_LARGE, TooDeep, loads_bounded

GAP = b"\x00clawrec:bytes-unavailable\x00"
RAW_LIMIT = 256 * 1024


@dataclass
class Body:
    """A decoded body: `kind` json|urlencoded|multipart|text|binary|empty|unavailable; `value` what rules look
    into."""

    kind: str
    value: Any = None
    raw: bytes = b""
    complete: bool = True
    files: list[dict[str, Any]] = field(default_factory=list)
    decode: str | None = None  # why `value` is None although there are bytes: "too deep" | "too large"

    def raw_text(self) -> str:
        text = self.raw[:RAW_LIMIT].replace(GAP, b"<bytes unavailable>").decode("utf-8", "replace")
        return text + ("…[truncated]" if len(self.raw) > RAW_LIMIT else "")


def header(headers: dict[str, str], name: str) -> str:
    """A header value, case-insensitive ('' when absent)."""
    name = name.lower()
    for k, v in (headers or {}).items():
        if k.lower() == name:
            return v
    return ""


def entries_bytes(request: dict[str, Any]) -> tuple[bytes, bool]:
    """The body bytes of a CDP Network.Request and whether every chunk carried its bytes."""
    entries = request.get("postDataEntries")
    if entries:
        out, complete = [], True
        for e in entries:
            if "bytes" in e:
                out.append(base64.b64decode(e["bytes"]))
            else:
                out.append(GAP)
                complete = False
        return b"".join(out), complete
    post = request.get("postData")
    if post is not None:
        return post.encode("utf-8", "surrogateescape"), True
    return b"", not request.get("hasPostData", False)


def decode(body: bytes, content_type: str = "", files: tuple[Path, ...] | list[Path] = (),
           complete: bool = True) -> Body:
    """Decode by content type first, then by sniffing (JSON, then urlencoded, then text).

    No body but `complete=False` (Chrome did not hand the bytes over) is kind `unavailable`, never `empty`. A body
    over the limits (taskspec/limits.py) is not decoded: value None, `decode` says why ("too deep", "too large"),
    the raw bytes are kept; a rule that needs its fields then cannot be decided and the interceptor holds it."""
    ctype = content_type.lower()
    if not body:
        return Body("empty" if complete else "unavailable", None, body, complete)
    if "multipart/form-data" in ctype:
        m = re.search(r'boundary="?([^";]+)"?', content_type, re.I)
        if m:
            return _multipart(body, m.group(1).encode(), files, complete)
    if len(body) > MAX_DECODE_BYTES:
        head = body[:64].lstrip()
        kind = "json" if "json" in ctype or head[:1] in (b"{", b"[") else \
            "urlencoded" if "x-www-form-urlencoded" in ctype else "text"
        return Body(kind, None, body, complete, decode=TOO_LARGE)
    text = body.decode("utf-8", "replace") if GAP not in body else None
    if text is not None:
        stripped = text.strip()
        if "json" in ctype or stripped[:1] in ("{", "["):
            try:
                return Body("json", loads_bounded(stripped), body, complete)
            except TooDeep:
                return Body("json", None, body, complete, decode=TOO_DEEP)
            except ValueError:
                pass
        if "x-www-form-urlencoded" in ctype or _looks_urlencoded(stripped):
            try:
                pairs = parse_qsl(stripped, keep_blank_values=True, max_num_fields=MAX_FORM_FIELDS)
            except ValueError:  # more fields than any form has: decoding would stall the CDP loop
                return Body("urlencoded", None, body, complete, decode=TOO_LARGE)
            return Body("urlencoded", form_dict(pairs), body, complete)
        if "\ufffd" not in text:
            return Body("text", text, body, complete)
    return Body("binary", None, body, complete)


def _looks_urlencoded(text: str) -> bool:
    return bool(text) and "=" in text and not any(c in text for c in " \n\r\t{}<>\"")


def form_dict(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Form pairs to a dict; a repeated key becomes a list (order kept). Linear: a body repeating one key 4 million
    times must not copy a growing list per pair."""
    grouped: dict[str, list[Any]] = {}
    for k, v in pairs:
        grouped.setdefault(k, []).append(v)
    return {k: vs[0] if len(vs) == 1 else vs for k, vs in grouped.items()}


def _multipart(body: bytes, boundary: bytes, files: tuple[Path, ...] | list[Path], complete: bool) -> Body:
    pairs: list[tuple[str, Any]] = []
    found: list[dict[str, Any]] = []
    chunks = body.split(b"--" + boundary)[1:]
    if len(chunks) > MAX_FORM_FIELDS + 1:
        return Body("multipart", None, body, complete, decode=TOO_LARGE)
    for chunk in chunks:
        if chunk.startswith(b"--"):
            break
        head, _, content = chunk.lstrip(b"\r\n").partition(b"\r\n\r\n")
        if content.endswith(b"\r\n"):
            content = content[:-2]
        headers = {}
        for line in head.split(b"\r\n"):
            k, _, v = line.decode("utf-8", "replace").partition(":")
            headers[k.strip().lower()] = v.strip()
        disp = headers.get("content-disposition", "")
        name = _param(disp, "name") or ""
        filename = _param(disp, "filename")
        if filename is None:
            pairs.append((name, content.replace(GAP, b"").decode("utf-8", "replace")))
            continue
        part = file_part(name, filename, headers.get("content-type", ""), content, files)
        found.append(part)
        pairs.append((name, part))
    return Body("multipart", form_dict(pairs), body, complete, found)


def _param(disposition: str, key: str) -> str | None:
    m = re.search(rf'(?:^|;)\s*{key}="((?:[^"\\]|\\.)*)"', disposition) or re.search(
        rf'(?:^|;)\s*{key}=([^;]+)', disposition)
    return m.group(1).strip() if m else None


def file_part(name: str, filename: str, content_type: str, content: bytes,
              files: tuple[Path, ...] | list[Path]) -> dict[str, Any]:
    """{field, filename, content_type, size, sha256, source} from the bytes, else from the task's file of that
    name, else `bytes_unavailable: true`."""
    part: dict[str, Any] = {"field": name, "filename": filename, "content_type": content_type}
    if GAP not in content:
        part.update(size=len(content), sha256=hashlib.sha256(content).hexdigest(), source="request")
        return part
    for path in files:
        p = Path(path)
        if p.name == filename and p.is_file():
            data = p.read_bytes()
            part.update(size=len(data), sha256=hashlib.sha256(data).hexdigest(), source="task_files",
                        path=str(p))
            return part
    part["bytes_unavailable"] = True
    return part
