"""Hold mode: every state-changing request waits for a person's decision (allow / block); no answer = block.

Why: a first human run on a site that has no spec yet has nothing to block its final click; holding every request
that can change state (anything but GET/HEAD/OPTIONS, GET form submissions, WebSocket sends; analytics beacons and
the recorder's own traffic excepted) makes that run safe, and the request the person blocks is exactly what
`clawrec annotate` needs. The Interceptor pauses every request while a Hold is set and asks it (`Hold.ask`) about
those `Hold.wants`; the WebSocket guard (interceptor/wsguard.py) defers each send page-side and asks
`Hold.ask`; deciders (the terminal, the recorder's control page) call `Hold.decide`. Every decision is a line of
holds.jsonl with its time.

GET form submissions: Fetch does not say why a document is requested; Page.frameRequestedNavigation does (reason
`formSubmissionGet`, with the exact request URL). Blink sends it unbuffered (InspectorPageAgent flushes it) before
it asks the browser to navigate, so it reaches us ahead of the request's Fetch.requestPaused (measured: 10-20 ms
ahead). A renderer round trip cannot confirm it: Chrome holds commands to a frame's renderer while its navigation
is pending (measured: Runtime.evaluate unanswered until the paused navigation goes on). A navigation with no reason
of its own (typed address, Page.navigate, reload) is held only when a GET form last asked for that URL.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from interceptor.cdp import Session
from taskspec.annotate import is_beacon
from taskspec.match import query_params
from rundir.records import JsonlWriter, RunClock
from rundir.redact import REDACTED, redact_url, secret_field

HOLDS = "holds.jsonl"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
DECISIONS = ("allow", "block")
DEFAULT_TIMEOUT = 60.0
FORM_GET = "formSubmissionGet"
REASONS_KEPT = 512  # navigation reasons remembered (URL -> last reason), oldest dropped first
DECIDED_KEPT = 50  # recent decisions the task page shows


@dataclass
class Held:
    """One paused request waiting for a decision."""

    id: int
    method: str
    url: str                           # secret query parameters redacted (what the person reads; the page is recorded)
    fields: list[tuple[str, str]]      # the first payload fields (name, short value) a person reads to decide
    t: float                           # run clock when it was held
    future: asyncio.Future = field(repr=False)
    deadline: float = 0.0              # run clock when no answer blocks it

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "method": self.method, "url": self.url, "fields": [list(f) for f in self.fields],
                "t": self.t}


def outcome_text(decision: str, by: str, timeout: float) -> str:
    """What the person reads about a decision, in the terminal and on the task page."""
    if by == "timeout":
        return f"blocked: no answer in {timeout:g} s"
    if by == "end of run":
        return "blocked: the session ended"
    where = {"page": "on the task page", "terminal": "in the terminal"}.get(by, f"by {by}")
    return f"{'allowed' if decision == 'allow' else 'blocked'} ({where})"


def first_fields(value: Any, limit: int = 4, width: int = 40) -> list[tuple[str, str]]:
    """(name, value) of the first top-level payload fields, values cut to `width` characters (a text message:
    its start as `data`); a secret field's value (a password, a CSRF token: rundir/redact.py) is `[redacted]`, as
    in every run file: the task page is in the run's screenshots and DOM layer."""
    if isinstance(value, list) and value and isinstance(value[0], dict):  # a batch: its first element
        value = value[0]
    items = list(value.items()) if isinstance(value, dict) else [("data", value)] if isinstance(value, str) else []
    out = []
    for key, v in items[:limit]:
        text = REDACTED if secret_field(str(key), v) else v if isinstance(v, str) else repr(v)
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
        self.settled: list[Callable[[Held, str, str], None]] = []  # told of every decision (held, decision, by)
        self.decided: collections.deque[dict[str, Any]] = collections.deque(maxlen=DECIDED_KEPT)  # for the page
        self.log = JsonlWriter(Path(run_dir) / HOLDS, clock)
        self._ids = itertools.count(1)
        self._reasons: dict[str, str] = {}  # URL (no fragment) -> why a renderer last asked to navigate to it
        self._closed = False
        self._log_closed = False

    def watch(self, session: Session) -> None:
        """Learn why each frame navigates (Page is enabled by interceptor/frames.py); before the target resumes."""
        if session.target_type in ("page", "iframe"):
            session.on("Page.frameRequestedNavigation", self._navigation)

    def _navigation(self, params: dict[str, Any]) -> None:
        url = str(params.get("url", "")).split("#", 1)[0]
        self._reasons.pop(url, None)
        self._reasons[url] = str(params.get("reason"))  # the last wins: a later link to it is no form; a reload
        # (no reason of its own) submits the form again, and is held again
        if len(self._reasons) > REASONS_KEPT:
            self._reasons.pop(next(iter(self._reasons)))

    def _own(self, url: str) -> bool:
        return any(url.startswith(prefix) for prefix in self.own_urls)

    def wants(self, method: str, url: str, resource_type: str | None = None) -> bool:
        """Held: state-changing (not GET/HEAD/OPTIONS, or a GET form submission), http(s), not a beacon, not the
        recorder's own traffic."""
        if not url.startswith(("http://", "https://")) or self._own(url):
            return False
        if method.upper() == "GET" and resource_type == "Document":
            return self._reasons.get(url.split("#", 1)[0]) == FORM_GET
        if method.upper() in SAFE_METHODS:
            return False
        return not is_beacon({"url": url, "resource_type": resource_type})

    def wants_ws(self, url: str) -> bool:
        """A WebSocket send is held unless it is the recorder's own or an analytics socket."""
        return not self._own(url) and not is_beacon({"url": url})

    async def ask(self, method: str, url: str, payload: Any) -> tuple[str, str, Held]:
        """Wait for a decision: (allow|block, who decided: terminal|page|timeout|end of run, the held request)."""
        loop = asyncio.get_running_loop()
        fields = first_fields(payload) or first_fields(query_params(url))
        now = self.clock.now()
        held = Held(next(self._ids), method, redact_url(url), fields, now, loop.create_future(), now + self.timeout)
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

    def state(self) -> dict[str, Any]:
        """What the task page shows: the waiting requests with the seconds left, the recent decisions."""
        now = self.clock.now()
        held = [{**h.to_json(), "left": round(max(0.0, h.deadline - now), 1)} for h in self.pending.values()]
        return {"held": held, "decided": list(self.decided), "timeout": self.timeout}

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
        self.decided.appendleft({**held.to_json(), "decision": decision, "by": by,
                                 "text": outcome_text(decision, by, self.timeout)})
        for listener in list(self.settled):
            try:
                listener(held, decision, by)
            except Exception:  # a display that failed (a closed terminal) never changes a decision
                pass
        if not self._log_closed:
            self.log.write({"id": held.id, "method": held.method, "url": held.url, "decision": decision, "by": by,
                            "held_t": held.t, "waited_s": round(self.clock.now() - held.t, 3)})
