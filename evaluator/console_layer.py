"""console.jsonl (written by interceptor/console.py): the pages' console messages, uncaught exceptions and browser
log entries, on the run clock. Read tolerantly like every layer (a corrupt line is a note, not fatal)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rundir.reader import read_numbered
from rundir.records import CONSOLE
ERROR_LEVELS = {"error", "assert"}


@dataclass(frozen=True)
class ConsoleEntry:
    line: int
    t: float | None
    kind: str          # console | exception | log
    level: str         # error | warning | info | log | debug | …
    text: str
    url: str | None
    target: str | None
    raw: dict[str, Any]

    @property
    def is_error(self) -> bool:
        if "ERR_BLOCKED_BY_CLIENT" in self.text:
            return False  # the browser noting the request clawrec blocked (the caught submission): not the page's
        return self.kind == "exception" or self.level in ERROR_LEVELS


def read_console(run_path: Path) -> tuple[list[ConsoleEntry], list[str]]:
    """The entries of RUN/console.jsonl (none if the run has no such layer) and notes on unreadable lines."""
    p = Path(run_path) / CONSOLE
    if not p.is_file():
        return [], []
    try:
        rows, bad, _n = read_numbered(p)
    except OSError as exc:
        return [], [f"{CONSOLE}: unreadable ({exc.strerror or exc})"]
    out = []
    for line, r in rows:
        t = r.get("t")
        t = float(t) if isinstance(t, (int, float)) else None
        out.append(ConsoleEntry(line, t, str(r.get("kind") or "console"),
                                str(r.get("level") or "log"), str(r.get("text") or ""),
                                r.get("url") if isinstance(r.get("url"), str) else None,
                                r.get("target") if isinstance(r.get("target"), str) else None, r))
    return out, [f"{CONSOLE}: line {b} is corrupt (skipped)" for b in bad]
