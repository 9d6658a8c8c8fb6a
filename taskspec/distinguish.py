"""Which payload fields tell a terminal request apart from the other requests a recorded run sent to its endpoint.

Why as few fields as possible: every path in a rule's `fields` must be present for a request to be caught, so each
one is a way for an agent's submission to slip through: an agent that leaves out one optional field would have its
request continued to the real site. An annotated rule therefore lists only the fields that some other request of the
person's run (same URL glob and method, or the same WebSocket) lacks, picked greedily (the field most of the
remaining look-alikes lack, first in payload order on ties), and none when URL + method already single the terminal
request out. The values the judge compares go to the spec's `expect`, never to the matcher.

Decisions go through the interceptor's own matcher (taskspec.match), so "would the rule catch it" here is exactly
what the interceptor will do. Pure data: no browser, no I/O.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Iterable
from urllib.parse import urlsplit, urlunsplit

from taskspec.fieldpath import leaves
from taskspec.match import could_match, matches, query_params, websocket_message_matches
from taskspec.payload import Body
from taskspec.model import Rule
from taskspec.volatile import reason as token_reason


@dataclass(frozen=True)
class Sent:
    """One request (or sent WebSocket message, method "WS") of a recorded run, with its decoded body."""

    line: int
    method: str
    url: str
    kind: str
    value: Any
    known: bool = True  # False: the recording could not read the body (nothing can be decided from it)


def caught(rule: Rule, sent: Sent) -> bool:
    """Whether the interceptor would catch `sent` under `rule`."""
    if sent.method == "WS":
        return rule.is_websocket and websocket_message_matches(rule, sent.url, sent.value)
    return matches(rule, sent.method, sent.url, Body(sent.kind, sent.value))


def _shape(method: str, url: str, kind: str, value: Any) -> tuple[str, str, tuple[tuple[str, str], ...]]:
    """(method, URL without its query, the payload's non-volatile leaves): a GET form's query is its payload."""
    parts = urlsplit(url)
    if kind in ("empty", "unavailable") and value is None:
        kind, value = "urlencoded", query_params(url)
    if kind in ("json", "urlencoded", "multipart") and isinstance(value, (dict, list)):
        payload = tuple(sorted((p, repr(v)) for p, v in leaves(value) if not token_reason(p, v)))
    else:
        payload = (("", repr(value)),)
    return method.upper(), urlunsplit(parts._replace(query="", fragment="")), payload


def same_submission(a: Sent, b: Sent) -> bool:
    """Two requests that are the same submission sent again: same method, URL and payload, volatile fields aside."""
    return _shape(a.method, a.url, a.kind, a.value) == _shape(b.method, b.url, b.kind, b.value)


def look_alikes(rule: Rule, target: Sent, others: Iterable[Sent]) -> list[Sent]:
    """The other requests `rule` would also catch; a request with the same payload (volatile fields aside) is the
    same submission (a double click, a retry) and is not counted."""
    return [s for s in others if s.known and s.line != target.line and not same_submission(s, target)
            and caught(rule, s)]


def unread_look_alikes(rule: Rule, target: Sent, others: Iterable[Sent]) -> list[Sent]:
    """Other requests to the rule's URL and method whose body the recording could not read."""
    return [s for s in others if not s.known and s.line != target.line and s.method != "WS"
            and could_match(rule, s.method, s.url)]


def distinguishing_fields(rule: Rule, target: Sent, others: Iterable[Sent],
                          paths: Iterable[str]) -> tuple[tuple[str, ...], list[Sent]]:
    """(fields to add to `rule`, look-alikes it still catches). Only `paths` the target itself has are used, and a
    field is added only when it drops at least one look-alike."""
    fields = list(rule.fields)
    remaining = look_alikes(rule, target, others)
    pool = [p for p in dict.fromkeys(paths) if p not in fields]
    added: list[str] = []
    while remaining and pool:
        best, best_left = None, remaining
        for path in pool:
            trial = dataclasses.replace(rule, fields=(*fields, path))
            if not caught(trial, target):
                continue
            left = [s for s in remaining if caught(trial, s)]
            if len(left) < len(best_left):
                best, best_left = path, left
        if best is None:
            break
        fields.append(best)
        added.append(best)
        pool.remove(best)
        remaining = best_left
    return tuple(added), remaining


def telling_values(rule: Rule, target: Sent, left: list[Sent], pairs: Iterable[tuple[str, Any]]) -> list[str]:
    """Constant fields of the target whose `equals` alone would drop every look-alike in `left` (what to suggest for
    `--equals` when only values tell the requests apart; never chosen by annotate itself: a value in the matcher lets
    an agent's differently-filled submission through)."""
    out = []
    for path, value in pairs:
        if isinstance(value, (dict, list)) or path in rule.equals:
            continue
        trial = dataclasses.replace(rule, equals={**rule.equals, path: value})
        if caught(trial, target) and not any(caught(trial, s) for s in left):
            out.append(path)
    return out
