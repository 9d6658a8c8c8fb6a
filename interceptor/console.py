"""The pages' console and errors as part of the HTTP/browser layer: Runtime.consoleAPICalled,
Runtime.exceptionThrown and Log.entryAdded from every attached target (pages, iframes, workers) -> console.jsonl,
on the run clock.

Why in the interceptor: it already holds one session per target, attached before the target runs, so nothing a
page logs while loading is missed. Logging only, never in the way: the enable commands are best effort (a target
that refuses them is still protected), handlers only format and buffer (the file is flushed on a timer, never from
the reader loop's hot path), and the layer is capped (text per entry, entries, bytes) so a page that logs in a loop
cannot fill the disk. Secrets (the spec's, the channel token, password-like URL parameters) are redacted.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any, Iterable

from interceptor.cdp import Session
from interceptor.httplog import scrub, url_ignored
from rundir.records import CONSOLE, JsonlWriter, RunClock

TEXT_LIMIT = 2000           # characters of one entry's text
MAX_ENTRIES = 5000          # entries per run; later ones are counted, not written
MAX_BYTES = 2 * 1024 * 1024
FLUSH_DELAY = 0.2
TYPES = ("page", "iframe", "worker", "shared_worker", "service_worker")
LEVELS = {"warning": "warning", "warn": "warning", "error": "error", "assert": "error", "info": "info",
          "debug": "debug", "verbose": "debug", "trace": "log", "dir": "log", "table": "log"}
SECRET_PARAM = re.compile(r"(?i)([?&;](?:access_token|id_token|token|api[_-]?key|apikey|password|passwd|secret|"
                          r"client_secret|code|otp|sig|signature)=)[^&#\s\"']+")


def _arg_text(obj: dict[str, Any]) -> str:
    """A console argument (a RemoteObject) as text, the way DevTools shows it on one line."""
    if "value" in obj:
        v = obj["value"]
        if isinstance(v, bool):
            return "true" if v else "false"
        return "null" if v is None else v if isinstance(v, str) else str(v)
    if "unserializableValue" in obj:
        return str(obj["unserializableValue"])
    return str(obj.get("description") or obj.get("className") or obj.get("type") or "")


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
        self.ignore = tuple(u for u in ignore if u)  # the recorder's own targets (its extension): not the page's
        self.secrets = [s for s in secrets if s and len(s) >= 3]
        self.writer = JsonlWriter(Path(run_dir) / CONSOLE, clock)
        self.count = self.dropped = self.bytes = 0
        self.closed = False
        self._timer: asyncio.TimerHandle | None = None

    def prepare(self, session: Session) -> None:
        """Listen on one target; the enables are queued before the target resumes and are best effort."""
        if session.target_type not in TYPES or url_ignored(session.target_info.get("url"), self.ignore):
            return
        session.on("Runtime.consoleAPICalled", lambda p: self._console(session, p))
        session.on("Runtime.exceptionThrown", lambda p: self._exception(session, p))
        session.on("Log.entryAdded", lambda p: self._log(session, p))
        session.send_quiet("Runtime.enable")
        session.send_quiet("Log.enable")

    # --- events (reader loop: format and buffer only) -----------------------------------------------------------
    def _t(self, epoch_ms: Any) -> float:
        now = self.clock.now()
        if isinstance(epoch_ms, (int, float)) and epoch_ms > 1e12:
            t = self.clock.from_epoch_ms(epoch_ms)
            if abs(t - now) < 5:  # a page clock far off (or a monotonic stamp) is not trusted
                return t
        return now

    def _console(self, session: Session, p: dict[str, Any]) -> None:
        text = " ".join(_arg_text(a) for a in p.get("args") or [])
        kind = str(p.get("type") or "log")
        self._emit(session, {"kind": "console", "level": LEVELS.get(kind, "log"), "type": kind, "text": text,
                             **_where(p.get("stackTrace"))}, p.get("timestamp"))

    def _exception(self, session: Session, p: dict[str, Any]) -> None:
        d = p.get("exceptionDetails") or {}
        exc = d.get("exception") or {}
        text = str(exc.get("description") or d.get("text") or "exception")
        where = _where(d.get("stackTrace")) or {"url": d.get("url"), "line": d.get("lineNumber"),
                                                "column": d.get("columnNumber")}
        self._emit(session, {"kind": "exception", "level": "error", "text": text, **where}, p.get("timestamp"))

    def _log(self, session: Session, p: dict[str, Any]) -> None:
        e = p.get("entry") or {}
        if e.get("source") == "worker":
            return  # a worker's console call, echoed on its page: the worker's own session already logged it
        self._emit(session, {"kind": "log", "level": LEVELS.get(str(e.get("level")), str(e.get("level") or "info")),
                             "source": e.get("source"), "text": str(e.get("text") or ""), "url": e.get("url"),
                             "line": e.get("lineNumber")}, e.get("timestamp"))

    def _redact(self, text: str) -> str:
        text = SECRET_PARAM.sub(r"\1[redacted]", text)
        return scrub(text, self.secrets) if self.secrets else text

    def _emit(self, session: Session, rec: dict[str, Any], stamp: Any) -> None:
        if self.closed:
            return
        if self.count >= MAX_ENTRIES or self.bytes >= MAX_BYTES:
            self.dropped += 1
            return
        text = self._redact(rec["text"])
        if len(text) > TEXT_LIMIT:
            rec["truncated"] = len(text)
            text = text[:TEXT_LIMIT] + "…"
        rec["text"] = text
        if isinstance(rec.get("url"), str):
            rec["url"] = self._redact(rec["url"])[:500]
        rec = {"t": self._t(stamp), **{k: v for k, v in rec.items() if v is not None}, "target": session.target_type,
               "target_id": session.target_id, "target_url": self._redact(str(session.target_info.get("url") or
                                                                               ""))[:500]}
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
