"""The run directory's files in one place: file names, the run clock, a JSONL writer and reader (record types:
rundir/layers.py).

Pure data + tiny I/O helpers (no browser), so interceptor, recorder and evaluator all import it. Every writer adds
`t` through RunClock so all five layers share one clock (seconds since t0).
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from rundir.jsondepth import MAX_RECORD_DEPTH, TooDeep, loads_bounded
from rundir.layers import Record
from rundir.redact import Redactor
from rundir.writeguard import WriteGuard

MANIFEST = "manifest.json"
VIDEO = "video.mp4"
SCREENSHOTS_DIR = "screenshots"
SCREENSHOTS_INDEX = "screenshots/screenshots.jsonl"
HTTP = "http.jsonl"
HAR = "http.har"
INTERCEPTIONS = "interceptions.jsonl"
AGENT = "agent.jsonl"
ACTIONS = "actions.jsonl"
CONSOLE = "console.jsonl"  # pages' console messages, uncaught exceptions, browser log entries
VERDICT = "verdict.json"
ENVIRONMENT = "environment.json"  # the org's end state (state checks + record delta), written before the reset
SUBGOALS = "subgoals.jsonl"  # a generated site's subgoal events during the run (factory eval), read by the progress judge
REPORT = "report.html"
DOM = "dom.jsonl.zst"  # layer 6: DOM captures, one zstd frame per JSON line (rundir/domfile.py)
ARCHIVE = "archive.warc.gz"  # --archive: the site as WARC/1.1 (written by archive/warc.py, which names it too)
REPLAY = "replay.jsonl"  # --site-from: every request and the archive tier that answered it (interceptor/replay.py)


@dataclass
class RunClock:
    """One clock per run: t0 is wall-clock epoch seconds, `now()` is seconds since t0 (monotonic-backed)."""

    t0: float = field(default_factory=time.time)
    _mono0: float = field(default_factory=time.monotonic)
    browser_shift: float = 0.0  # seconds the browser's wall clock is moved (--site-from: clawrec/replay_env.py)

    def now(self) -> float:
        return round(time.monotonic() - self._mono0, 6)

    def from_epoch(self, epoch_s: float) -> float:
        """A wall-clock timestamp (seconds) on the run clock (page Date.now()/1000, CDP wallTime)."""
        return round(epoch_s - self.t0, 6)

    def from_epoch_ms(self, epoch_ms: float) -> float:
        """A browser timestamp in ms (page Date.now(), CDP) on the run clock, the replay's clock shift removed."""
        return self.from_epoch(epoch_ms / 1000.0 - self.browser_shift)


def dumps_line(record: dict[str, Any]) -> str:
    """One compact JSON line (orjson: ~5x faster than json.dumps on the hot HTTP log path)."""
    try:
        return orjson.dumps(record, default=str, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE).decode()
    except (orjson.JSONEncodeError, TypeError):  # lone surrogates, ints beyond 64 bits: the stdlib writes them
        return json.dumps(record, default=str, separators=(",", ":")) + "\n"


class JsonlWriter:
    """Append-only JSONL, one line per record, flushed at once (a crash loses at most the line being written).

    Thread-safe so that a CDP loop and a channel server may share it. `t` is added from the clock when absent.
    Every record passes the redaction policy (rundir/redact.py) on its way out: the one place secrets are removed
    for every layer; `redactor` may be shared by a run's writers (its secret values are then everyone's).
    """

    def __init__(self, path: str | Path, clock: RunClock | None = None, fsync: bool = False,
                 redactor: Redactor | None = None) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.clock = clock
        self.fsync = fsync
        self.count = 0
        self.redactor = redactor if redactor is not None else Redactor()
        # The run's write health (rundir/writeguard.py): a failed write is reported there and the run stops; every
        # writer of the run then drops its records (counted). Without a guard a failed write raises OSError.
        self.guard: WriteGuard | None = None
        self.error: OSError | None = None
        self.dropped = 0
        self._lock = threading.Lock()
        self._fh = open(self.path, "a", encoding="utf-8")

    def write(self, record: Record | dict[str, Any], flush: bool = True) -> dict[str, Any]:
        """Append one line (a layer's record as its `to_json()`); returns the line as written (redacted, with `t`).
        `flush=False` leaves it in the buffer for a later `flush()` (a high-volume log that batches its syscalls;
        the line is on disk by the next flush or close)."""
        if isinstance(record, Record):
            record = record.to_json()
        if self.clock is not None and "t" not in record:
            record = {"t": self.clock.now(), **record}
        line = dumps_line(record)
        if self.redactor.suspect(line):
            record = self.redactor.record(record)
            line = dumps_line(record)
        with self._lock:
            if self.error is not None or (self.guard is not None and self.guard.error is not None):
                self.dropped += 1
                return record
            if self._fh.closed:
                raise ValueError(f"{self.path} is closed")
            try:
                self._fh.write(line)
                if flush:
                    self._flush()
            except OSError as exc:
                self._broken(exc)
                return record
            self.count += 1
        return record

    def fail(self, path: str | Path, exc: OSError) -> None:
        """Report a failed write of a file that belongs to this layer (a screenshot's JPG) to the run's guard."""
        if self.guard is None:
            raise exc
        self.guard.fail(path, exc)

    def _broken(self, exc: OSError) -> None:
        """A write failed (lock held): close, cut the half-written line, tell the guard (or raise)."""
        self.error = exc
        try:
            self._fh.close()
        except OSError:
            pass
        try:
            cut_torn_tail(self.path)
        except OSError:
            pass
        self.fail(self.path, exc)

    @property
    def secrets(self) -> list[str]:
        """Values replaced by [redacted] in every line (tokens, single-use URLs, the spec's secret values)."""
        return self.redactor.values

    @secrets.setter
    def secrets(self, values: list[str]) -> None:
        self.redactor.add(values)

    def flush(self) -> None:
        with self._lock:
            if not self._fh.closed:
                try:
                    self._flush()
                except OSError as exc:
                    self._broken(exc)

    def _flush(self) -> None:
        self._fh.flush()
        if self.fsync:
            os.fsync(self._fh.fileno())

    def close(self) -> None:
        with self._lock:
            if not self._fh.closed:
                try:
                    self._fh.close()
                except OSError as exc:  # the last buffered lines did not fit
                    self._broken(exc)

    def __enter__(self) -> "JsonlWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def cut_torn_tail(path: str | Path) -> int:
    """After a crash or a failed write: cut a last line that has no newline (half a record) so the file ends on a
    whole line; returns the bytes cut (the torn part never parsed, so no record is lost)."""
    p = Path(path)
    try:
        with open(p, "rb+") as fh:
            size = fh.seek(0, os.SEEK_END)
            if size == 0:
                return 0
            fh.seek(max(0, size - 1))
            if fh.read(1) == b"\n":
                return 0
            start = max(0, size - (1 << 20))
            fh.seek(start)
            tail = fh.read()
            cut = tail.rfind(b"\n")
            keep = start + cut + 1 if cut >= 0 else (0 if start == 0 else size)
            fh.truncate(keep)
            return size - keep
    except FileNotFoundError:
        return 0


class CorruptLine(ValueError):
    """A JSONL line that is not a JSON object (strict reading); the message names the file and the line."""


def read_numbered(path: str | Path, *, strict: bool = False) -> tuple[list[tuple[int, dict[str, Any]]], list[int], int]:
    """The one JSONL reader: (line number, record) pairs, the numbers of lines that are not a JSON object (a crash
    may cut the last; nesting deeper than any record clawrec writes counts as corrupt), and the number of lines.
    `strict`: the first corrupt line raises CorruptLine instead. A missing file reads as empty."""
    out: list[tuple[int, dict[str, Any]]] = []
    bad: list[int] = []
    n = 0
    p = Path(path)
    if not p.exists():
        return out, bad, 0
    with open(p, encoding="utf-8", errors="replace") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = loads_bounded(line, MAX_RECORD_DEPTH)
                why = None if isinstance(obj, dict) else "not a JSON object"
            except TooDeep:
                why = "nested deeper than any record clawrec writes"
            except ValueError as exc:
                why = (f"{exc.msg.removesuffix(' at')} at column {exc.colno}"
                       if isinstance(exc, json.JSONDecodeError) else str(exc))
            if why is None:
                out.append((n, obj))
            elif strict:
                raise CorruptLine(f"{p}:{n}: corrupt JSONL line ({why})")
            else:
                bad.append(n)
    return out, bad, n


def read_jsonl(path: str | Path) -> tuple[list[dict[str, Any]], list[int]]:
    """Records of a JSONL file and the 1-based numbers of lines that did not parse (read_numbered, tolerant)."""
    rows, bad, _n = read_numbered(path)
    return [r for _i, r in rows], bad
