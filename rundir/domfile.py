"""Layer 6's file, RUN/dom.jsonl.zst: one JSON line per DOM capture, each line its own zstandard frame.

Why one frame per line: the file is appended to as captures land and must survive a crash like the JSONL layers do;
a run killed mid-write leaves at most one torn frame at the end, which `read_dom` skips (and `cut_torn_dom` cuts).
Concatenated frames are one valid zstd stream (`zstd -dc dom.jsonl.zst` prints the JSONL). Snapshots are large
(~35 kB of JSON each on the demo travel page) and repetitive: each compresses ~4x by itself.

Every record passes the run's one redaction policy (rundir/redact.py) before it is compressed: the snapshot's own
rules (secret inputs' values, scripts' text, secret-named attributes) are `redact_snapshot`'s, and the by-value rule
(the spec's secrets, values learnt when typed into a secret input) runs over every string of the snapshot's string
table and of the record. `scrub_dom` is the finalize rewriter (rundir/scrub.py) for values learnt after a capture.
"""

from __future__ import annotations

import io
import threading
from pathlib import Path
from typing import Any, Iterator

import orjson
import zstandard

from rundir.jsondepth import MAX_RECORD_DEPTH, loads_bounded
from rundir.layers import DomCapture
from rundir.redact import REDACTED, Redactor, secret_input, secret_name

LEVEL = 6  # the travel run: 6 % smaller than level 3 (261 vs 278 kB), ~4 ms per ~35 kB capture (level 3: ~2 ms)
SCRIPT_TAGS = ("SCRIPT", "NOSCRIPT", "TEMPLATE")  # text never rendered by the viewer (scripts may hold tokens)
VALUE_ATTRS = ("value", "content", "data-value")


def _attrs(nodes: dict[str, Any], strings: list[str], i: int) -> dict[str, str]:
    flat = nodes.get("attributes") or []
    pairs = flat[i] if i < len(flat) else []
    out = {}
    for k in range(0, len(pairs) - 1, 2):
        if 0 <= pairs[k] < len(strings):
            out[strings[pairs[k]].lower()] = strings[pairs[k + 1]] if 0 <= pairs[k + 1] < len(strings) else ""
    return out


def redact_snapshot(snap: dict[str, Any], redactor: Redactor) -> dict[str, Any]:
    """A DOMSnapshot.captureSnapshot result made safe to store, in place: a secret input (rundir/redact.py
    `secret_input`: password, one-time-code, card inputs, secret-named fields) keeps no value (input value, value
    attribute); a secret-named element's value-like attributes (a CSRF token in a hidden input or a meta tag) are
    replaced; script text is dropped; then every string has the run's secret values replaced."""
    strings: list[str] = snap.get("strings") or []
    for doc in snap.get("documents") or []:
        nodes = doc.get("nodes") or {}
        names = nodes.get("nodeName") or []
        parents = nodes.get("parentIndex") or []
        values = nodes.get("nodeValue") or []
        for i, parent in enumerate(parents):  # a script's text nodes: the string is blanked, wherever used
            if 0 <= parent < len(names) and strings[names[parent]] in SCRIPT_TAGS and i < len(values) \
                    and 0 <= values[i] < len(strings):
                strings[values[i]] = ""
        secret: set[int] = set()
        for i, name in enumerate(names):
            tag = strings[name] if 0 <= name < len(strings) else ""
            if tag not in ("INPUT", "TEXTAREA", "SELECT", "META"):
                continue
            a = _attrs(nodes, strings, i)
            target = {"type": a.get("type"), "autocomplete": a.get("autocomplete"), "name_attr": a.get("name"),
                      "id": a.get("id")}
            if secret_input(target) or secret_name(a.get("name")) or secret_name(a.get("property")):
                secret.add(i)
        if not secret:
            continue
        # The value's string itself is replaced (strings are shared: a text node showing it goes too).
        for key in ("inputValue", "textValue"):
            rare = nodes.get(key) or {}
            for idx, v in zip(rare.get("index") or [], rare.get("value") or []):
                if idx in secret and 0 <= v < len(strings) and strings[v]:
                    strings[v] = REDACTED
        flat = nodes.get("attributes") or []
        for i in secret:
            pairs = flat[i] if i < len(flat) else []
            for k in range(0, len(pairs) - 1, 2):
                if strings[pairs[k]].lower() in VALUE_ATTRS and 0 <= pairs[k + 1] < len(strings) \
                        and strings[pairs[k + 1]]:
                    strings[pairs[k + 1]] = REDACTED
    if redactor.values or any("=" in s and "://" in s[:12] for s in strings):
        snap["strings"] = [redactor.text(s) if s else s for s in strings]
    return snap


def redact_capture(record: dict[str, Any], redactor: Redactor) -> dict[str, Any]:
    """A capture record: each frame's snapshot (`redact_snapshot`), then the rest of the record by the policy."""
    frames = record.get("frames") or []
    for frame in frames:
        if isinstance(frame.get("snapshot"), dict):
            redact_snapshot(frame["snapshot"], redactor)
    head = {k: v for k, v in record.items() if k != "frames"}
    out = redactor.record(head)
    out["frames"] = [{**redactor.record({k: v for k, v in f.items() if k != "snapshot"}),
                      **({"snapshot": f["snapshot"]} if "snapshot" in f else {})} for f in frames]
    return out


def encode(record: dict[str, Any]) -> bytes:
    """One record as its own zstd frame (a JSON line)."""
    line = orjson.dumps(record, default=str, option=orjson.OPT_APPEND_NEWLINE)
    return zstandard.ZstdCompressor(level=LEVEL).compress(line)


class DomWriter:
    """Appends capture records to dom.jsonl.zst (thread-safe: captures are encoded off the event loop)."""

    def __init__(self, path: str | Path, redactor: Redactor | None = None) -> None:
        self.path = Path(path)
        self.redactor = redactor if redactor is not None else Redactor()
        self.count = 0
        self.bytes = 0
        self.error: OSError | None = None
        self._lock = threading.Lock()
        self._fh = open(self.path, "ab")

    def write(self, record: DomCapture | dict[str, Any]) -> dict[str, Any]:
        """Redact, compress and append one record; returns the record as written (without encoding it twice)."""
        if isinstance(record, DomCapture):
            record = record.to_json()
        record = redact_capture(record, self.redactor)
        frame = encode(record)
        with self._lock:
            if self._fh.closed:
                raise ValueError(f"{self.path} is closed")
            try:
                self._fh.write(frame)
                self._fh.flush()
            except OSError as exc:  # a full disk: the torn frame is cut; the run's guard is told by the caller
                self.error = exc
                self._fh.close()
                cut_torn_dom(self.path)
                raise
            self.count += 1
            self.bytes += len(frame)
        return record

    def close(self) -> None:
        with self._lock:
            if not self._fh.closed:
                self._fh.close()


def _frames(data: bytes) -> Iterator[tuple[int, bytes]]:
    """(end offset, decompressed bytes) of each whole frame; stops at a torn or foreign one."""
    dctx = zstandard.ZstdDecompressor()
    view = memoryview(data)
    pos = 0
    while pos < len(data):
        try:
            obj = dctx.decompressobj()
            out = obj.decompress(view[pos:])
        except zstandard.ZstdError:
            return
        if not obj.eof:
            return
        end = len(data) - len(obj.unused_data)
        yield end, out
        pos = end


def read_dom(path: str | Path) -> tuple[list[dict[str, Any]], int]:
    """(records, bad): the capture records of a dom layer file in order; `bad` counts lines or a tail that did not
    parse (a torn last frame after a crash). A missing file reads as empty."""
    p = Path(path)
    if not p.exists():
        return [], 0
    data = p.read_bytes()
    out: list[dict[str, Any]] = []
    bad = 0
    end = 0
    for end, chunk in _frames(data):
        for line in io.BytesIO(chunk):
            if not line.strip():
                continue
            try:
                obj = loads_bounded(line.decode("utf-8", "replace"), MAX_RECORD_DEPTH + 8)
            except ValueError:
                bad += 1
                continue
            if isinstance(obj, dict):
                out.append(obj)
            else:
                bad += 1
    return out, bad + (1 if end < len(data) else 0)


def cut_torn_dom(path: str | Path) -> int:
    """Cut a torn last frame (a crash mid-write); returns the bytes cut."""
    p = Path(path)
    if not p.exists():
        return 0
    data = p.read_bytes()
    end = 0
    for end, _chunk in _frames(data):
        pass
    if end < len(data):
        with open(p, "rb+") as fh:
            fh.truncate(end)
    return len(data) - end


def scrub_dom(path: Path, needles: list[str]) -> bool:
    """Finalize's rewriter (rundir/scrub.py): values learnt after a capture replaced in every record, the file
    rewritten in place (same format); True when it changed."""
    records, _bad = read_dom(path)
    redactor = Redactor(needles)
    raw = [orjson.dumps(r) for r in records]
    if not any(n.encode() in line for line in raw for n in redactor.values):
        return False
    out = b"".join(encode(redact_capture(r, redactor)) for r in records)
    with open(path, "r+b") as fh:
        fh.write(out)
        fh.truncate()
    return True
