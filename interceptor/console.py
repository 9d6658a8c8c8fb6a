"""The pages' console and errors as part of the HTTP/browser layer: Console.messageAdded and Log.entryAdded from
every attached target (pages, iframes, workers) -> console.jsonl, on the run clock; uncaught exceptions at the end.

Why not Runtime.enable: a page can tell that a client enabled Runtime (console arguments are serialized for it, so an
Error.prepareStackTrace hook fires on `console.log(new Error())`: tests/footprint). The Console domain reports the
same console calls as text only (nothing of the page runs), Log the browser's own entries (network errors,
violations, a worker's uncaught errors). A page's uncaught exceptions are only reported to Runtime, so they come from
Chromium's own log instead (`browser_log`, interceptor/chromelog.py: every frame's, also of documents the tab
navigated away from, with the time each was thrown; nothing is enabled in any target), read when the run is over.
Without that log (a browser clawrec did not launch), `collect_exceptions` falls back to Runtime.enable, then disable,
at the end: V8 kept them for the current document of each target only (what the page could notice then no longer
changes the run).

Why in the interceptor: it already holds one session per target, attached before the target runs, so nothing a
page logs while loading is missed. Logging only, never in the way: the enable commands are best effort (a target
that refuses them is still protected), handlers only format and buffer (the file is flushed on a timer, never from
the reader loop's hot path), and the layer is capped (text per entry, entries, bytes) so a page that logs in a loop
cannot fill the disk. Secrets (the spec's, the channel token, password-like URL parameters) are redacted.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable

from interceptor import chromelog
from interceptor.cdp import Session
from interceptor.httplog import scrub, url_ignored
from rundir.records import CONSOLE, JsonlWriter, RunClock

TEXT_LIMIT = 2000           # characters of one entry's text
MAX_ENTRIES = 5000          # entries per run; later ones are counted, not written
MAX_BYTES = 2 * 1024 * 1024
MAX_EXCEPTIONS = 500        # uncaught exceptions read at the end: apart from the cap (a page that logs in a loop
                            # must not hide them)
FLUSH_DELAY = 0.2
LOG_CAP = 32 * 1024 * 1024  # bytes of Chromium's log (a page flooding the console) before it is drained and emptied
CHECK_EVERY = 1000          # console messages between two looks at that log's size
TYPES = ("page", "iframe", "worker", "shared_worker", "service_worker")
LEVELS = {"warning": "warning", "warn": "warning", "error": "error", "assert": "error", "info": "info",
          "debug": "debug", "verbose": "debug", "trace": "log", "dir": "log", "table": "log"}
SECRET_PARAM = re.compile(r"(?i)([?&;](?:access_token|id_token|token|api[_-]?key|apikey|password|passwd|secret|"
                          r"client_secret|code|otp|sig|signature)=)[^&#\s\"']+")


def _where(stack: dict[str, Any] | None) -> dict[str, Any]:
    frames = (stack or {}).get("callFrames") or []
    if not frames:
        return {}
    f = frames[0]
    return {"url": f.get("url") or None, "line": f.get("lineNumber"), "column": f.get("columnNumber"),
            "function": f.get("functionName") or None}


class ConsoleLog:
    """Writes console.jsonl for every target it is prepared on (see the module docstring)."""

    def __init__(self, run_dir: Path, clock: RunClock, secrets: Iterable[str] = (), ignore: Iterable[str] = ()) -> None:
        self.clock = clock
        self.skip: tuple[str, ...] = ()  # console texts that are clawrec's own (the WebSocket guard's reports)
        self.sessions: list[Session] = []
        self.ignore = tuple(u for u in ignore if u)  # the recorder's own targets (its extension): not the page's
        self.secrets = [s for s in secrets if s and len(s) >= 3]
        self.writer = JsonlWriter(Path(run_dir) / CONSOLE, clock)
        self.count = self.dropped = self.bytes = self.exceptions = self.crashes = 0
        self.closed = False
        self._timer: asyncio.TimerHandle | None = None
        self.browser_log: Path | None = None  # Chromium's stderr with --enable-logging=stderr (chromelog.py)
        self._uncaught: Counter[str] = Counter()  # "Uncaught …" texts the domains gave (not again from the log)
        self._kept: list[chromelog.Entry] = []  # exceptions taken out of the log before it was emptied (_drain)
        self._draining: asyncio.Future | None = None
        self._messages = 0

    def prepare(self, session: Session) -> None:
        """Listen on one target; the enables are queued before the target resumes and are best effort."""
        if session.target_type not in TYPES or url_ignored(session.target_info.get("url"), self.ignore):
            return
        session.on("Console.messageAdded", lambda p: self._message(session, p))
        session.on("Log.entryAdded", lambda p: self._log(session, p))
        session.on("Inspector.targetCrashed", lambda p: self._crashed(session))  # sent without Inspector.enable
        session.send_quiet("Console.enable")
        session.send_quiet("Log.enable")
        if session.target_type in ("page", "iframe"):
            self.sessions.append(session)

    async def collect_exceptions(self, timeout: float = 3.0) -> None:
        """The run is over: every page's uncaught exceptions from Chromium's log, or without it those V8 kept for
        each page's current document (see the docstring)."""
        if self.browser_log is not None and self.browser_log.is_file() and not self.closed:
            if self._draining is not None:
                await asyncio.wait([self._draining])
            self._from_log(self._kept + await asyncio.to_thread(self._read_log, self._limit()))
            return
        async def one(session: Session) -> None:
            if session.closed or session.crashed:  # a dead renderer answers nothing: no 3 s wait for it
                return
            session.on("Runtime.exceptionThrown", lambda p: self._exception(session, p, replayed=True))
            try:
                await session.call("Runtime.enable", timeout=timeout)  # replays them before it answers
                session.send_quiet("Runtime.disable")
            except Exception:  # best effort: a target that went away has nothing to add
                pass
        if self.sessions and not self.closed:
            await asyncio.wait([asyncio.ensure_future(one(s)) for s in self.sessions], timeout=timeout + 1)

    def _limit(self) -> int:
        return MAX_EXCEPTIONS + sum(self._uncaught.values())  # what the cap can take, and the ones to skip

    def _read_log(self, limit: int) -> list[chromelog.Entry]:
        """The log's uncaught exceptions (in a thread: the log may be long), at most `limit`."""
        found: list[chromelog.Entry] = []
        # The log's times are the browser's clock (a replay moves it: RunClock.browser_shift); its year is inferred.
        browser_now = datetime.fromtimestamp(time.time() + self.clock.browser_shift)
        for entry in chromelog.read(self.browser_log or "", now=browser_now):
            if entry.uncaught and not url_ignored(entry.url, self.ignore):
                found.append(entry)
                if len(found) >= limit:
                    break
        return found

    def _look_at_log(self) -> None:
        """Every CHECK_EVERY console messages: Chromium writes each to its log too (the recorder's temp folder), so a
        page logging in a loop would fill the disk; past LOG_CAP the exceptions so far are taken out and it is
        emptied (Chromium appends: it goes on at the new end; what it writes between the two is lost)."""
        if self.browser_log is None or self._draining is not None and not self._draining.done():
            return
        try:
            if self.browser_log.stat().st_size <= LOG_CAP:
                return
        except OSError:
            return
        self._draining = asyncio.ensure_future(asyncio.to_thread(self._drain, self._limit()))

    def _drain(self, limit: int) -> None:
        found = self._read_log(limit)
        if len(self._kept) < limit:
            self._kept = self._kept + found[:limit - len(self._kept)]
        os.truncate(self.browser_log or "", 0)

    def _from_log(self, entries: list[chromelog.Entry]) -> None:
        for entry in entries:
            if self._uncaught[entry.text] > 0:  # a domain gave it (a worker's exception; a page saying "Uncaught")
                self._uncaught[entry.text] -= 1
                continue
            self._emit(None, {"kind": "exception", "level": "error", "text": entry.text, "url": entry.url,
                              "line": entry.line, "via": "chromium log"}, entry.epoch_ms, past=True)

    # --- events (reader loop: format and buffer only) -----------------------------------------------------------
    def _t(self, epoch_ms: Any, past: bool = False) -> float:
        now = self.clock.now()
        if isinstance(epoch_ms, (int, float)) and epoch_ms > 1e12:
            t = self.clock.from_epoch_ms(epoch_ms)
            if abs(t - now) < 5 or past and 0 <= t <= now:  # a page clock far off (or a monotonic stamp) is not
                # trusted; an exception read at the end of the run has its own time
                return t
        return now

    def _message(self, session: Session, p: dict[str, Any]) -> None:
        m = p.get("message") or {}
        text = str(m.get("text") or "")
        if self.skip and text.startswith(self.skip):
            return
        self._messages += 1
        if self._messages % CHECK_EVERY == 0:
            self._look_at_log()
        kind = str(m.get("level") or "log")
        if text.startswith("Uncaught ") and len(self._uncaught) < MAX_ENTRIES:  # a page saying it: in the log too
            self._uncaught[text] += 1
        self._emit(session, {"kind": "console", "level": LEVELS.get(kind, "log"), "type": kind, "text": text,
                             "url": m.get("url") or None, "line": m.get("line"), "column": m.get("column")}, None)

    def _exception(self, session: Session, p: dict[str, Any], replayed: bool = False) -> None:
        d = p.get("exceptionDetails") or {}
        exc = d.get("exception") or {}
        text = str(exc.get("description") or d.get("text") or "exception")
        where = _where(d.get("stackTrace")) or {"url": d.get("url"), "line": d.get("lineNumber"),
                                                "column": d.get("columnNumber")}
        self._emit(session, {"kind": "exception", "level": "error", "text": text, **where}, p.get("timestamp"),
                   past=replayed)

    def _log(self, session: Session, p: dict[str, Any]) -> None:
        e = p.get("entry") or {}
        text = str(e.get("text") or "")
        if text.startswith("Uncaught ") and len(self._uncaught) < MAX_ENTRIES:  # in Chromium's log too: not again
            self._uncaught[text] += 1
        if e.get("source") == "worker":
            if text.startswith("Uncaught "):  # a worker's own exception: only its page's Log has it (measured)
                self._emit(session, {"kind": "exception", "level": "error", "source": "worker", "text": text,
                                     "url": e.get("url"), "line": e.get("lineNumber")}, e.get("timestamp"))
            return  # a worker's console call, echoed on its page: the worker's own session already logged it
        self._emit(session, {"kind": "log", "level": LEVELS.get(str(e.get("level")), str(e.get("level") or "info")),
                             "source": e.get("source"), "text": text, "url": e.get("url"),
                             "line": e.get("lineNumber")}, e.get("timestamp"))

    def _crashed(self, session: Session) -> None:
        """A renderer (or worker) died under the target: recorded past the caps (a flooding page must not hide it),
        flushed at once (the run may be about to stop)."""
        self.crashes += 1
        self._emit(session, {"kind": "crash", "level": "error",
                             "text": f"the {session.target_type}'s renderer process crashed"}, None, force=True)
        self.writer.flush()

    def _redact(self, text: str) -> str:
        text = SECRET_PARAM.sub(r"\1[redacted]", text)
        return scrub(text, self.secrets) if self.secrets else text

    def _emit(self, session: Session | None, rec: dict[str, Any], stamp: Any, past: bool = False,
              force: bool = False) -> None:
        if self.closed:
            return
        full = self.exceptions >= MAX_EXCEPTIONS if past else self.count >= MAX_ENTRIES or self.bytes >= MAX_BYTES
        if full and not force:
            self.dropped += 1
            return
        self.exceptions += past
        text = self._redact(rec["text"])
        if len(text) > TEXT_LIMIT:
            rec["truncated"] = len(text)
            text = text[:TEXT_LIMIT] + "…"
        rec["text"] = text
        if isinstance(rec.get("url"), str):
            rec["url"] = self._redact(rec["url"])[:500]
        where = {"target": session.target_type, "target_id": session.target_id,
                 "target_url": self._redact(str(session.target_info.get("url") or ""))[:500]} if session else \
            {"target": "frame"}  # Chromium's log names the script, not the page or iframe that ran it
        rec = {"t": self._t(stamp, past), **{k: v for k, v in rec.items() if v is not None}, **where}
        self.writer.write(rec, flush=False)
        self.count += 1
        self.bytes += len(text) + 200
        if self._timer is None:
            try:
                self._timer = asyncio.get_running_loop().call_later(FLUSH_DELAY, self._flush)
            except RuntimeError:
                self.writer.flush()

    def _flush(self) -> None:
        self._timer = None
        self.writer.flush()

    def close(self) -> None:
        """Note how many entries the cap dropped, flush and close (once)."""
        if self.closed:
            return
        if self.dropped:
            self.writer.write({"kind": "log", "level": "warning", "text": f"clawrec: {self.dropped} more console "
                               f"entries not recorded (cap: {MAX_ENTRIES} entries, {MAX_BYTES} bytes)",
                               "target": "clawrec"})
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.writer.close()
