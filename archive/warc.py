"""WARC/1.1 write and read (warcio): one request + one response record per HTTP exchange, and one metadata record
with what a replay needs (start time, timezone, locale, user agent, viewport, cookies at start).

Why this shape: it is what Browsertrix and ArchiveWeb.page write from a browser, so pywb, ReplayWeb.page and
cdxj-indexer read it as any crawl: the response body is stored the way the browser received it (decoded), so the
`Content-Encoding` header is renamed (`X-Orig-Content-Encoding`, like Browsertrix) and `Content-Length` set to the
stored length; `Transfer-Encoding` is dropped. A body cut at the cap carries `WARC-Truncated: length`. Records are
written in the order the exchanges finished; a request record names its response in `WARC-Concurrent-To`.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from io import BytesIO
from pathlib import Path
from typing import Any, BinaryIO, Iterable
from urllib.parse import urlsplit

from warcio.archiveiterator import ArchiveIterator
from warcio.statusandheaders import StatusAndHeaders
from warcio.timeutils import datetime_to_iso_date
from warcio.warcwriter import WARCWriter

ARCHIVE = "archive.warc.gz"          # RUN/archive.warc.gz
REPLAY_INFO_URI = "urn:clawrec:replay-info"
DEFAULT_CAP = 50 * 1024 * 1024        # bytes of one response body kept (`--archive-cap`)
DROPPED = ("transfer-encoding",)
RENAMED = {"content-encoding": "X-Orig-Content-Encoding"}

Headers = list[tuple[str, str]]


@dataclass
class Exchange:
    """One recorded HTTP exchange (a redirect hop is its own exchange)."""
    method: str
    url: str
    req_headers: Headers
    req_body: bytes
    status: int
    reason: str
    headers: Headers
    body: bytes
    date: datetime
    truncated: bool = False
    order: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def header(self, name: str) -> str:
        low = name.lower()
        return next((v for k, v in self.headers if k.lower() == low), "")


def stored_headers(headers: Iterable[tuple[str, str]], length: int) -> Headers:
    """Response headers as archived for a decoded body: Content-Encoding renamed, Content-Length = stored bytes."""
    out: Headers = []
    for k, v in headers:
        low = k.lower()
        if low in DROPPED or low == "content-length":
            continue
        out.append((RENAMED.get(low, k), v))
    out.append(("Content-Length", str(length)))
    return out


def _request_line(method: str, url: str) -> str:
    parts = urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return f"{method} {target} HTTP/1.1"


class WarcFile:
    """Appends records to one .warc.gz (thread-safe: the capture writes from a worker thread)."""

    def __init__(self, path: str | Path, cap: int = DEFAULT_CAP) -> None:
        self.path = Path(path)
        self.cap = cap
        self._fh: BinaryIO = open(self.path, "wb")
        self._writer = WARCWriter(self._fh, gzip=True, warc_version="WARC/1.1")
        self._lock = threading.Lock()
        self.exchanges = 0
        self.bytes_kept = 0
        info = self._writer.create_warcinfo_record(self.path.name, {
            "software": "clawrec", "format": "WARC File Format 1.1",
            "json-metadata": json.dumps({"note": "bodies stored decoded, as the browser received them"})})
        self._write(info)

    def _write(self, *records: Any) -> None:
        with self._lock:
            for rec in records:
                self._writer.write_record(rec)
            self._fh.flush()

    def metadata(self, info: dict[str, Any], date: datetime | None = None) -> None:
        """The replay info record (JSON): start time, timezone, locale, user agent, viewport, cookies at start."""
        payload = json.dumps(info, sort_keys=True).encode()
        rec = self._writer.create_warc_record(REPLAY_INFO_URI, "metadata", payload=BytesIO(payload),
                                              length=len(payload), warc_content_type="application/json",
                                              warc_headers_dict=_date(date))
        self._write(rec)

    def exchange(self, method: str, url: str, req_headers: Iterable[tuple[str, str]], req_body: bytes,
                 status: int, reason: str, headers: Iterable[tuple[str, str]], body: bytes,
                 date: datetime | None = None, truncated: bool = False) -> None:
        """Write one request + response pair; a body over the cap is cut and marked `WARC-Truncated: length`."""
        if len(body) > self.cap:
            body, truncated = body[: self.cap], True
        warc_headers = _date(date)
        resp_http = StatusAndHeaders(f"{status} {reason or 'OK'}", stored_headers(headers, len(body)),
                                     protocol="HTTP/1.1")
        resp_warc = dict(warc_headers)
        if truncated:
            resp_warc["WARC-Truncated"] = "length"
        resp = self._writer.create_warc_record(url, "response", payload=BytesIO(body), length=len(body),
                                               http_headers=resp_http, warc_headers_dict=resp_warc)
        req_list = [(k, v) for k, v in req_headers if not k.startswith(":")]
        if req_body and not any(k.lower() == "content-length" for k, _ in req_list):
            req_list.append(("Content-Length", str(len(req_body))))
        req_http = StatusAndHeaders(_request_line(method, url), req_list, is_http_request=True)
        req = self._writer.create_warc_record(url, "request", payload=BytesIO(req_body), length=len(req_body),
                                              http_headers=req_http, warc_headers_dict=dict(warc_headers))
        req.rec_headers.add_header("WARC-Concurrent-To", resp.rec_headers.get_header("WARC-Record-ID"))
        self._write(resp, req)
        self.exchanges += 1
        self.bytes_kept += len(body)

    def close(self) -> None:
        with self._lock:
            if not self._fh.closed:
                self._fh.close()


def _date(date: datetime | None) -> dict[str, str]:
    date = (date or datetime.now(timezone.utc)).astimezone(timezone.utc).replace(tzinfo=None)  # warcio: naive UTC
    return {"WARC-Date": datetime_to_iso_date(date, use_micros=True)}


def _parse_date(value: str | None) -> datetime:
    """WARC-Date with or without fractions of a second (WARC/1.1 allows them; warcio's parser does not)."""
    try:
        return datetime.fromisoformat((value or "").replace("Z", "+00:00"))
    except ValueError:
        return datetime.now(timezone.utc)


@dataclass
class Archive:
    """A read archive: its exchanges in recorded order and the replay info (empty if the archive has none)."""
    exchanges: list[Exchange]
    info: dict[str, Any]


def read_warc(source: str | Path | BinaryIO) -> Archive:
    """Every request/response pair of a WARC (gzip'd or not), joined by WARC-Concurrent-To, in file order."""
    fh = open(source, "rb") if isinstance(source, (str, Path)) else source
    try:
        return _read(fh)
    finally:
        if fh is not source:
            fh.close()


def _read(fh: BinaryIO) -> Archive:
    responses: dict[str, Exchange] = {}
    order: list[str] = []
    info: dict[str, Any] = {}
    for rec in ArchiveIterator(fh, arc2warc=True):
        rtype = rec.rec_type
        rid = rec.rec_headers.get_header("WARC-Record-ID")
        uri = rec.rec_headers.get_header("WARC-Target-URI") or ""
        if rtype == "metadata" and uri == REPLAY_INFO_URI:
            info = json.loads(rec.content_stream().read() or b"{}")
        elif rtype in ("response", "revisit") and rec.http_headers is not None:
            body = rec.content_stream().read()
            code = rec.http_headers.get_statuscode() or "200"
            reason = rec.http_headers.statusline.split(" ", 1)[1] if " " in rec.http_headers.statusline else ""
            date = _parse_date(rec.rec_headers.get_header("WARC-Date"))
            responses[rid] = Exchange(
                method="GET", url=uri, req_headers=[], req_body=b"", status=int(code), reason=reason,
                headers=list(rec.http_headers.headers), body=body, date=date,
                truncated=bool(rec.rec_headers.get_header("WARC-Truncated")))
            order.append(rid)
        elif rtype == "request" and rec.http_headers is not None:
            to = rec.rec_headers.get_header("WARC-Concurrent-To")
            ex = responses.get(to)
            if ex is not None:
                ex.method = rec.http_headers.protocol.upper()  # warcio keeps the request line's method here
                ex.req_headers = list(rec.http_headers.headers)
                ex.req_body = rec.content_stream().read()
    exchanges = []
    for i, rid in enumerate(order):
        ex = responses[rid]
        ex.order = i
        exchanges.append(ex)
    return Archive(exchanges, info)
