"""A page's uncaught exceptions from Chromium's own log, the one channel a page cannot see.

Why: V8 reports a page's uncaught exceptions only to the Runtime domain, and only for the current document: enabling
Runtime replays the stored console calls and exceptions, serializing their arguments IN the page (the
`Error.prepareStackTrace` leak, tests/footprint). Read at the end of the run, the exceptions of every document the tab
navigated away from are gone; read when a navigation starts (Page.frameStartedNavigating) they are gone too whenever
the Runtime.enable arrives after the commit (measured, Chromium 156 under load: the first document's three exceptions
missed, the second's one), and the replay still runs in the live old document, which can write what it noticed to
storage for the next one. The Log domain carries no page exception (measured: only network errors, violations and
workers' errors). Chromium's browser process, though, logs every console message of every frame as it arrives
(content's RenderFrameHostImpl::DidAddMessageToConsole), uncaught exceptions included, when it runs with
`--enable-logging=stderr` (recorder/browser.py): a line per message on its stderr, which the recorder writes to its
private chromium.log:

    [PID:TID:MMDD/HHMMSS.micros:INFO:CONSOLE:LINE] "Uncaught Error: boom", source: http://h/a.js (LINE)

(older builds write `CONSOLE(LINE)`). A message may span lines; its end is `", source: URL (LINE)`. The time is the
browser's local clock to the microsecond, without a year (the nearest year not in the future is taken).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Iterator

HEAD = re.compile(r'^\[\d+:\d+:(\d{2})(\d{2})/(\d{2})(\d{2})(\d{2})\.(\d{1,6}):INFO:CONSOLE[:(]\d+\)?\] "')
TAIL = re.compile(r'", source: (.*) \((\d+)\)$')
ANY_HEAD = re.compile(r"^\[\d+:\d+:\d{4}/\d{6}\.\d+:")
MAX_LINES = 200        # lines of one message (a console text with newlines); longer ones are dropped
MAX_TEXT = 20_000      # characters kept of one message while reading (console.py cuts it further)


@dataclass(frozen=True)
class Entry:
    """One console message as Chromium logged it."""
    epoch_ms: float
    text: str
    url: str
    line: int

    @property
    def uncaught(self) -> bool:
        """An uncaught exception or unhandled rejection (V8's own `Uncaught …` message)."""
        return self.text.startswith("Uncaught ")


def read(path: str | Path, start: int = 0, now: datetime | None = None) -> Iterator[Entry]:
    """The console messages in Chromium's log from byte `start` on, in order (other log lines are skipped)."""
    now = now or datetime.now()
    head: re.Match[str] | None = None
    parts: list[str] = []
    with open(path, "rb") as fh:
        fh.seek(start)
        for raw in fh:
            text = raw.decode("utf-8", "replace").rstrip("\r\n")
            if head is None or ANY_HEAD.match(text):  # a new log line: a message cut short by it is dropped
                head = HEAD.match(text)
                if head is None:
                    continue
                parts = [text[head.end():]]
            else:
                parts.append(text)
            end = TAIL.search(parts[-1])
            if end is not None:
                parts[-1] = parts[-1][:end.start()]
                yield Entry(_epoch_ms(head, now), "\n".join(parts)[:MAX_TEXT], end[1], int(end[2]))
                head = None
            elif len(parts) >= MAX_LINES:
                head = None


def _epoch_ms(head: re.Match[str], now: datetime) -> float:
    month, day, hour, minute, second = (int(g) for g in head.groups()[:5])
    micros = int(head[6].ljust(6, "0"))
    for year in (now.year, now.year - 1):  # the log has no year: the latest one not in the future
        try:
            when = datetime(year, month, day, hour, minute, second, micros)
        except ValueError:  # 29 February of a year without it
            continue
        if when <= now + timedelta(days=1):
            return when.timestamp() * 1000  # local time, as the browser (same machine, same TZ) wrote it
    return now.timestamp() * 1000
