"""Hold mode: every state-changing request waits for a person's decision (allow / block); no answer = block.

Why: a first human run on a site that has no spec yet has nothing to block its final click; holding every request
that can change state (anything but GET/HEAD/OPTIONS, analytics beacons and the recorder's own traffic excepted)
makes that run safe, and the request the person blocks is exactly what `clawrec annotate` needs. The Interceptor
pauses every request while a Hold is set and asks it (`Hold.ask`) about those `Hold.wants`; deciders (the terminal,
the recorder's control page) call `Hold.decide`. Every decision is a line of holds.jsonl with its time.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from taskspec.annotate import is_beacon
from rundir.records import JsonlWriter, RunClock

HOLDS = "holds.jsonl"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
DECISIONS = ("allow", "block")
DEFAULT_TIMEOUT = 60.0


@dataclass
class Held:
    """One paused request waiting for a decision."""

    id: int
    method: str
    url: str
    fields: list[tuple[str, str]]      # the first payload fields (name, short value) a person reads to decide
    t: float                           # run clock when it was held
    future: asyncio.Future = field(repr=False)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "method": self.method, "url": self.url, "fields": [list(f) for f in self.fields],
                "t": self.t}


def first_fields(value: Any, limit: int = 4, width: int = 40) -> list[tuple[str, str]]:
    """(name, value) of the first top-level payload fields, values cut to `width` characters."""
    items = list(value.items()) if isinstance(value, dict) else []
    out = []
    for key, v in items[:limit]:
        text = v if isinstance(v, str) else repr(v)
        out.append((str(key), text if len(text) <= width else text[: width - 1] + "…"))
    return out


class Hold:
    """The queue of held requests and their decision log (one per run)."""

    def __init__(self, run_dir: str | Path, clock: RunClock, timeout: float = DEFAULT_TIMEOUT,
                 own_urls: list[str] | tuple[str, ...] = ()) -> None:
        self.clock = clock
        self.timeout = timeout
        self.own_urls = list(own_urls)  # the recorder's own traffic (channel, extension, control page): never held
        self.pending: dict[int, Held] = {}
        self.listeners: list[Callable[[Held], None]] = []  # told of every new held request (terminal, page)
        self.log = JsonlWriter(Path(run_dir) / HOLDS, clock)
        self._ids = itertools.count(1)
        self._closed = False
        self._log_closed = False

    def wants(self, method: str, url: str, resource_type: str | None = None) -> bool:
        """Held: state-changing (not GET/HEAD/OPTIONS), http(s), not a beacon, not the recorder's own traffic."""
        if method.upper() in SAFE_METHODS or not url.startswith(("http://", "https://")):
            return False
        if any(url.startswith(prefix) for prefix in self.own_urls):
            return False
        return not is_beacon({"url": url, "resource_type": resource_type})

    async def ask(self, method: str, url: str, payload: Any) -> tuple[str, str, Held]:
        """Wait for a decision: (allow|block, who decided: terminal|page|timeout|end of run, the held request)."""
        loop = asyncio.get_running_loop()
        held = Held(next(self._ids), method, url, first_fields(payload), self.clock.now(), loop.create_future())
        if self._closed:
            held.future.set_result(("block", "end of run"))
        else:
            self.pending[held.id] = held
            for listener in list(self.listeners):
                listener(held)
        try:
            decision, by = await asyncio.wait_for(asyncio.shield(held.future), self.timeout)
        except asyncio.TimeoutError:
            decision, by = "block", "timeout"
        self._settle(held, decision, by)
        return decision, by, held

    def decide(self, held_id: int | None, decision: str, by: str) -> Held | None:
        """A person's answer for request `held_id` (None: the oldest waiting); returns it, or None if none waits."""
        if decision not in DECISIONS:
            raise ValueError(f"decision must be one of {DECISIONS}, not {decision!r}")
        if held_id is None:
            held_id = min(self.pending, default=None)
        held = self.pending.get(held_id) if held_id is not None else None
        if held is None or held.future.done():
            return None
        held.future.set_result((decision, by))
        return held

    def close(self) -> None:
        """End of run: every request still waiting is blocked (fail closed)."""
        self._closed = True
        for held in list(self.pending.values()):
            if not held.future.done():
                held.future.set_result(("block", "end of run"))

    def close_log(self) -> None:
        self._log_closed = True
        self.log.close()

    def _settle(self, held: Held, decision: str, by: str) -> None:
        self.pending.pop(held.id, None)
        if not self._log_closed:
            self.log.write({"id": held.id, "method": held.method, "url": held.url, "decision": decision, "by": by,
                            "held_t": held.t, "waited_s": round(self.clock.now() - held.t, 3)})
