"""Rewrite a run's WARC with secret values learnt late replaced, keeping it a valid, replayable archive.

Why: a value typed into a secret input becomes a run secret only when it is typed (recorder `learn_secret`); the
capture redacts it from every exchange written after that, but the archive may already hold it: a search the person
typed it into first (URL, Referer), a request body, a page that showed it (an OTP in the HTML). The run's finalize
(rundir/scrub.py) hands this module the forms of those values to replace, BEFORE the manifest hashes the files.

Policy, the archive's own (archive/README.md): request side (target URI, request line, header values, body) as
http.jsonl's, every occurrence replaced; response header values too. Response BODIES are kept (a replay serves them)
except for these learnt values, replaced in text bodies (HTML, JSON, JS, CSS, XML, forms, plain text): a value
the person typed is theirs, a replay never needs it served, and every other run file (http.jsonl's response bodies
included) already has it replaced, so the archive would be the one file left holding it. Binary bodies (images,
video, fonts) are left byte for byte: a replacement would corrupt them, and a typed value is not in them except
by chance (the same rule as screenshots and video in rundir/scrub.py).

How: warcio reads each record; one that holds no value is copied as its gzip member, byte for byte; one that does is
rebuilt with the same WARC headers (record id, date, WARC-Concurrent-To, WARC-Truncated) and new lengths and digests
(Content-Length of the HTTP message and of the record, WARC-Block-Digest, WARC-Payload-Digest), so `warcio check`,
cdxj-indexer, pywb and the replay lookup read it as before. Written to a temporary file beside it, then renamed over
it (atomic: a crash leaves the old archive, never half of one).
"""

from __future__ import annotations

import gzip
import os
from io import BytesIO
from pathlib import Path
from typing import Any, Sequence

from warcio.archiveiterator import ArchiveIterator
from warcio.warcwriter import WARCWriter

TEXT_MIME = ("text/", "json", "javascript", "ecmascript", "xml", "x-www-form-urlencoded", "html", "csv",
             "multipart/form-data")
DIGESTS = ("warc-block-digest", "warc-payload-digest", "content-length")


def scrub_warc(path: str | Path, needles: Sequence[str], mark: str = "[redacted]") -> int:
    """Replace every `needles` string (longest first) in `path`'s records as the module docstring says; returns
    how many records were rewritten (0: the file is untouched)."""
    path = Path(path)
    found = sorted({n for n in needles if n}, key=len, reverse=True)
    if not found or not path.exists() or not _holds(path, [n.encode() for n in found]):
        return 0
    tmp = path.with_name(f".{path.name}.scrub")
    rewritten = 0
    try:
        with open(path, "rb") as src, open(path, "rb") as raw, open(tmp, "wb") as out:
            writer = WARCWriter(out, gzip=True, warc_version="WARC/1.1")
            records = ArchiveIterator(src)
            for rec in records:
                new = _scrubbed(rec, writer, found, mark)
                records.read_to_end(rec)
                if new is None:
                    raw.seek(records.get_record_offset())
                    out.write(raw.read(records.get_record_length()))
                else:
                    writer.write_record(new)
                    rewritten += 1
            out.flush()
            os.fsync(out.fileno())
        if rewritten:
            os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return rewritten


def _holds(path: Path, needles: list[bytes]) -> bool:
    """Whether the decompressed archive holds any needle (read in chunks; a needle across two chunks is seen)."""
    keep = max(len(n) for n in needles) - 1
    tail = b""
    with gzip.open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            data = tail + chunk
            if any(n in data for n in needles):
                return True
            tail = data[-keep:] if keep else b""
    return False


def _replace(text: str, needles: list[str], mark: str) -> str:
    for n in needles:
        if n in text:
            text = text.replace(n, mark)
    return text


def _bytes(data: bytes, needles: list[str], mark: str) -> bytes:
    text = data.decode("utf-8", "surrogateescape")  # any bytes round-trip; only the needles change
    new = _replace(text, needles, mark)
    return data if new == text else new.encode("utf-8", "surrogateescape")


def _text_body(http: Any) -> bool:
    mime = (http.get_header("Content-Type") or "").lower() if http is not None else ""
    return not mime or any(t in mime for t in TEXT_MIME)


def _scrubbed(rec: Any, writer: WARCWriter, needles: list[str], mark: str) -> Any:
    """The record rebuilt with the needles replaced, or None when it holds none (then it is copied as it is)."""
    http = rec.http_headers
    body = rec.raw_stream.read()
    changed = False
    uri = rec.rec_headers.get_header("WARC-Target-URI") or ""
    new_uri = _replace(uri, needles, mark)
    changed |= new_uri != uri
    if http is not None:
        line = _replace(http.statusline, needles, mark)
        headers = [(k, _replace(v, needles, mark)) for k, v in http.headers]
        changed |= line != http.statusline or headers != http.headers
        http.statusline, http.headers = line, headers
    if rec.rec_type != "response" or _text_body(http):
        new_body = _bytes(body, needles, mark)
        changed |= new_body is not body
        body = new_body
    if not changed:
        return None
    if http is not None and http.get_header("Content-Length") is not None:
        http.replace_header("Content-Length", str(len(body)))
    warc = rec.rec_headers
    warc.headers = [(k, new_uri if k.lower() == "warc-target-uri" else v) for k, v in warc.headers
                    if k.lower() not in DIGESTS]
    return writer.create_warc_record(new_uri, rec.rec_type, payload=BytesIO(body), length=len(body),
                                     warc_content_type=rec.content_type, warc_headers=warc, http_headers=http)
