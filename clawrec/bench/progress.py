"""Bench progress on stderr: a live rich display on a terminal (done/total, running runs with their elapsed time,
pass/fail/error counts, ETA), or one plain line per event with `--quiet` or when stderr is not a terminal."""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

COUNTED = ("pass", "fail", "judge_inconclusive", "unjudged", "infra", "bad_input", "wall")


class Progress:
    def __init__(self, quiet: bool = False, jobs: int = 1) -> None:
        self.console = Console(stderr=True, highlight=False)
        self.live_mode = not quiet and self.console.is_terminal
        self.jobs = max(1, jobs)
        self.total = 0
        self.done = 0
        self.counts = {k: 0 for k in COUNTED}
        self.running: dict[str, float] = {}
        self.durations: list[float] = []
        self.live: Live | None = None
        self.t0 = time.monotonic()

    # --- events ---------------------------------------------------------------------------------------------------
    def begin(self, total: int, already: list[dict[str, Any]]) -> None:
        self.total = total
        for r in already:
            self._count(r)
        self._line(f"bench: {total} runs planned, {len(already)} already final, {total - len(already)} to do")
        if self.live_mode:
            self.live = Live(self._render(), console=self.console, refresh_per_second=2, transient=True,
                             get_renderable=self._render)
            self.live.start()

    def started(self, key: str) -> None:
        self.running[key] = time.monotonic()
        self._line(f"start {key}")

    def judging(self, key: str) -> None:
        self._line(f"judge {key}")

    def note(self, text: str) -> None:
        self._line(text, always=True)

    def finished(self, key: str, row: dict[str, Any]) -> None:
        started = self.running.pop(key, None)
        if started is not None and row.get("duration") is not None:
            self.durations.append(time.monotonic() - started)
        self._count(row)
        why = row.get("stop_reason") or ""
        self._line(f"[{self.done}/{self.total}] {key}: {row['outcome']}"
                   + (f" ({row['status']}; {str(why)[:120]})" if row.get("status") else f" ({why})"), always=True)

    def end(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None
        self.console.print(self._status_line())

    # --- rendering ------------------------------------------------------------------------------------------------
    def _count(self, row: dict[str, Any]) -> None:
        if row["outcome"] in self.counts:
            self.counts[row["outcome"]] += 1
            self.done += 1

    def _eta(self) -> str:
        left = self.total - self.done
        if not left or not self.durations:
            return "ETA –"
        secs = statistics.fmean(self.durations) * left / self.jobs
        return f"ETA {int(secs // 60)}m{int(secs % 60):02d}s"

    def _status_line(self) -> str:
        c = self.counts
        return (f"bench: {self.done}/{self.total} done — {c['pass']} pass, {c['fail']} fail, "
                f"{c['infra'] + c['bad_input']} error, {c['judge_inconclusive']} inconclusive — "
                f"{len(self.running)} running — {self._eta()}")

    def _render(self) -> Group:
        table = Table(show_header=True, box=None, pad_edge=False)
        table.add_column("running")
        table.add_column("elapsed", justify="right")
        now = time.monotonic()
        for key, t in sorted(self.running.items(), key=lambda kv: kv[1]):
            table.add_row(key, f"{now - t:.0f} s")
        return Group(Text(self._status_line()), table)

    def _line(self, text: str, always: bool = False) -> None:
        if self.live is not None:
            if always:
                self.live.console.print(text)
            return
        print(text, file=sys.stderr, flush=True)
