"""The candidate terminal requests of a recorded run, best first, and its start URL (for `clawrec annotate`).

Why a ranking and not a rule: see taskspec/annotate.py. A candidate is a mutating, non-beacon request, a sent
WebSocket message, or what hold mode blocked (a GET form submission, a frame that was never sent); `rank` puts a
rule's catch first, then a person's hold-mode blocks (the last decision first), then those after the last
click/submit. check-spec (taskspec/spec_runs.py) uses the same order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from rundir import records as R
from taskspec.annotate_run import AnnotateError, Run
from taskspec.distinguish import Sent
from taskspec.generalize import BEACON_WORDS, graphql_element, graphql_reads_only, is_graphql, placeholder_url
from taskspec.limits import loads_bounded
from taskspec.match import query_params
from taskspec.terminal import CAUGHT, HELD, PERSON

MUTATING = ("POST", "PUT", "PATCH", "DELETE")
BEACON_TYPES = {"ping", "beacon", "cspviolationreport", "csp_report"}
BEACON_HOSTS = ("google-analytics.com", "googletagmanager.com", "doubleclick.net", "segment.io", "sentry.io",
                "hotjar.com", "mixpanel.com", "amplitude.com", "facebook.com/tr", "clarity.ms")
TERMINAL_ACTIONS = ("click", "submit", "dblclick")


@dataclass
@dataclass
class Candidate:
    """One possible terminal request: an HTTP request or a sent WebSocket message."""

    line: int
    t: float
    method: str          # HTTP method, or "WS" for a WebSocket message
    url: str
    kind: str            # body kind: json|urlencoded|multipart|text|empty|... ("json" for a decodable WS message)
    payload: Any
    intercepted: str = ""  # blocked|fulfilled (a rule's catch), held_blocked (hold mode); "" = it went out
    held: int | None = None  # blocked by the person in hold mode: its line in interceptions.jsonl (decision order)
    source: str = R.HTTP     # the file `line` is in: a blocked WebSocket frame is only in interceptions.jsonl
    after_last_action: bool = False
    gap: float = 0.0

    @property
    def is_websocket(self) -> bool:
        return self.method == "WS"

    @property
    def where(self) -> str:
        return f"{self.source} line {self.line}"

    def sent(self) -> Sent:
        """As one of the run's requests (`frames` numbers interceptions.jsonl lines negative, as check-spec does)."""
        return Sent(self.line if self.source == R.HTTP else -self.line, self.method, self.url, self.kind,
                    self.payload)

    def keys(self) -> list[str]:
        body = graphql_element(self.payload) if isinstance(self.payload, list) else self.payload
        if is_graphql(body):
            variables = body.get("variables") if isinstance(body.get("variables"), dict) else {}
            return [f"operationName={body['operationName']}"] + [f"variables.{k}" for k in variables]
        return list(body) if isinstance(body, dict) else []


def is_beacon(rec: dict[str, Any]) -> bool:
    """Analytics, pings, beacons, error reports: mutating by method, never the task's submission."""
    if str(rec.get("resource_type") or "").lower() in BEACON_TYPES:
        return True
    url = str(rec.get("url") or "")
    if any(h in url for h in BEACON_HOSTS):
        return True
    words = {w for seg in urlsplit(url).path.lower().split("/") for w in re.split(r"[._]", seg) if w}
    return bool(words & BEACON_WORDS)


def _is_own_channel(rec: dict[str, Any], payload: Any) -> bool:
    """The recorder's own extension channel (actions streamed to clawrec) is never a task request."""
    return isinstance(payload, dict) and payload.get("type") == "events" and "token" in payload


def _decode_ws(text: Any) -> tuple[str, Any]:
    if isinstance(text, str):
        try:
            return "json", loads_bounded(text)
        except ValueError:  # not JSON, or too deep (taskspec/limits.py)
            return "text", text
    return "text", text


def sent(run: Run) -> list[Sent]:
    """Every request and sent WebSocket message of the run with its decoded body. A caught request whose body the
    HTTP layer could not read (a multipart form with a file) gets the body decoded in interceptions.jsonl; any other
    unread body is marked `known=False` (nothing can be decided from it)."""
    catches = list(run.catches)
    out: list[Sent] = []
    for line, rec in run.http:
        if rec.get("type", "request") == "websocket":
            if rec.get("event") == "sent" and rec.get("url"):
                kind, payload = _decode_ws(rec.get("payload"))
                if not _is_own_channel(rec, payload):
                    out.append(Sent(line, "WS", str(rec["url"]), kind, payload))
            continue
        method, url = str(rec.get("method") or "").upper(), str(rec.get("url") or "")
        body = rec.get("body") if isinstance(rec.get("body"), dict) else {}
        kind, value = str(body.get("kind") or "empty"), body.get("value")
        if kind in ("empty", "unavailable") and body.get("complete") is False:  # "empty": runs before issue 16
            catch = next((k for k in catches if k.get("url") == url and str(k.get("method")).upper() == method),
                         None) if rec.get("intercepted") else None
            if catch is None:
                out.append(Sent(line, method, url, kind, value, known=False))
                continue
            catches.remove(catch)
            kind, value = str(catch.get("body_kind") or "json"), catch.get("body")
        out.append(Sent(line, method, url, kind, value))
    return out


def frames(run: Run) -> list[Sent]:
    """The WebSocket messages the run kept from the socket (caught by a rule, or blocked in hold mode): they are in
    interceptions.jsonl only; line -N = its line N."""
    return [Sent(-n, "WS", rec["url"], str(rec.get("body_kind") or "json"), rec.get("body"))
            for n, rec in enumerate(run.catches, 1) if str(rec.get("method")).upper() == "WEBSOCKET"
            and isinstance(rec.get("url"), str) and rec["url"].startswith(("ws://", "wss://"))]


def _held(rec: dict[str, Any]) -> dict[str, Any]:
    return rec["held"] if isinstance(rec.get("held"), dict) else {}


def _person_blocks(run: Run) -> dict[str, int]:
    """interceptions.jsonl line of each request a person blocked in hold mode, by "id NETWORK_ID" (HTTP) or "ws N"
    (a frame, on line N)."""
    return {f"ws {n}" if str(rec.get("method")).upper() == "WEBSOCKET" else f"id {rec.get('network_id')}": n
            for n, rec in enumerate(run.catches, 1) if rec.get("action") == HELD and _held(rec).get("by") in PERSON}


def _action(value: Any) -> str:
    return "blocked" if value is True else str(value or "")  # `true`: runs recorded before the action was named


def candidates(run: Run) -> list[Candidate]:
    """Mutating, non-beacon requests, sent WebSocket messages, and what hold mode blocked (a GET form submission,
    a frame), best first (see `rank`)."""
    out: list[Candidate] = []
    records = dict(run.http)
    person = _person_blocks(run)
    for s in sent(run):
        rec = records[s.line]
        if s.method == "WS":
            out.append(Candidate(s.line, _time(rec), "WS", s.url, s.kind, s.value))
            continue
        action = _action(rec.get("intercepted"))
        caught = action in CAUGHT  # a request the run's rule caught is a candidate, even a beacon or a GET
        if not s.url.startswith(("http://", "https://")) or (is_beacon(rec) and not caught):
            continue
        kind, value = s.kind, s.value
        if s.method == "GET" and (action == HELD or caught):  # a held/caught GET form submission: its query
            kind, value = "urlencoded", query_params(s.url)
        elif s.method not in MUTATING or graphql_reads_only(s.value):
            continue
        out.append(Candidate(s.line, _time(rec), s.method, s.url, kind, value, intercepted=action,
                             held=person.get(f"id {rec['id']}") if action == HELD and rec.get("id") is not None else None))
    for f in frames(run):
        rec = run.catches[-f.line - 1]
        t = _held(rec).get("held_t", rec.get("t"))
        out.append(Candidate(-f.line, float(t) if isinstance(t, (int, float)) else 0.0, "WS", f.url, f.kind, f.value,
                             intercepted=_action(rec.get("action") or "blocked"), held=person.get(f"ws {-f.line}"),
                             source=R.INTERCEPTIONS))
    return rank(out, run.actions)


def _time(rec: dict[str, Any]) -> float:
    t = rec.get("started", rec.get("t"))
    return float(t) if isinstance(t, (int, float)) else 0.0


def _tier(c: Candidate) -> int:
    return 0 if c.intercepted in CAUGHT else 1 if c.held is not None else 2 if c.intercepted else 3


def rank(found: list[Candidate], actions: list[dict[str, Any]]) -> list[Candidate]:
    """Caught requests first; then those a person blocked in hold mode, the last decision first; then those hold
    mode blocked at its timeout; then those after the final click/submit, nearest first; then earlier ones, latest
    first. A person's last click is what sends the submission; requests after it are its effects."""
    last = max((float(a.get("t") or 0) for a in actions
                if a.get("type") in TERMINAL_ACTIONS or (a.get("type") == "keydown" and a.get("key") == "Enter")),
               default=None)
    for c in found:
        c.after_last_action = last is not None and c.t >= last
        c.gap = c.t - last if last is not None else 0.0
    return sorted(found, key=lambda c: (_tier(c), -(c.held or 0), not c.after_last_action,
                                        c.gap if c.after_last_action else -c.t, c.line))


def start_url(run: Run) -> str:
    nav = next((a.get("url") for a in run.actions if a.get("type") == "navigate"
                and str(a.get("url") or "").startswith(("http://", "https://"))), None)  # not about:blank
    task = run.manifest.get("task") if isinstance(run.manifest.get("task"), dict) else {}
    url = nav or task.get("start_url") or run.task.get("start_url")
    if not url:
        raise AnnotateError(f"{run.path}: no navigation in {R.ACTIONS} and no start URL in the manifest")
    return placeholder_url(str(url), run.sites)
