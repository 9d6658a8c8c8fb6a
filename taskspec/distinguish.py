"""Which payload fields tell a terminal request apart from the other requests a recorded run sent to its endpoint.

Why as few fields as possible: every path in a rule's `fields` must be present for a request to be caught, so each
one is a way for an agent's submission to slip through: an agent that leaves out one optional field would have its
request continued to the real site. An annotated rule therefore lists only the fields that some other request of the
person's run (same URL glob and method, or the same WebSocket) lacks, picked greedily (the field most of the
remaining look-alikes lack, first in payload order on ties), and none when URL + method already single the terminal
request out. The values the judge compares go to the spec's `expect`, never to the matcher.

When presence cannot tell them apart (a take and a reply posting the same form; a draft save and a send), annotate
(`tell_apart`) requires a free-text field the look-alike leaves empty (`nonempty`), and failing that pins one
flag-shaped value (`_draft: ''`), never an id or a text: an unticked checkbox's absence, a per-draft id or a typed
text in the matcher would let the agent's same submission, differently filled, reach the site.

Decisions go through the interceptor's own matcher (taskspec.match), so "would the rule catch it" here is exactly
what the interceptor will do. Pure data: no browser, no I/O.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any, Iterable
from urllib.parse import urlsplit, urlunsplit

from taskspec.fieldpath import MISSING, leaves, lookup
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


@dataclass(frozen=True)
class Told:
    """What annotate adds to the terminal rule to tell it apart (`tell_apart`), and the look-alikes still caught."""

    fields: tuple[str, ...] = ()
    nonempty: tuple[str, ...] = ()
    equals: dict[str, Any] = dataclasses.field(default_factory=dict)
    left: tuple[Sent, ...] = ()


def tell_apart(rule: Rule, target: Sent, others: Iterable[Sent], pairs: Iterable[tuple[str, Any]]) -> Told:
    """Greedy, the fewest conditions that drop the look-alikes; on a tie, in this order of preference: a field the
    look-alike lacks (not a flag), a free-text field the look-alike leaves empty (`nonempty`), a flag field the
    look-alike lacks (an unticked checkbox sends nothing: requiring it lets the same submission with the box
    unticked through, so it comes last). What presence and emptiness cannot tell apart, one flag-shaped value can,
    pinned in `equals` (Roundcube's `_draft=''` sends, `_draft=1` saves the draft: the kind of submission, like
    `_action`); an id or a text is never pinned (only suggested, `telling_values`)."""
    pairs = [(p, v) for p, v in pairs if p not in rule.fields]
    options = ([(0, "fields", p) for p, v in pairs if not is_flag(p, v)]
               + [(1, "nonempty", p) for p, v in pairs if is_free_text(p, v)]
               + [(2, "fields", p) for p, v in pairs if is_flag(p, v)])
    chosen: dict[str, list[str]] = {"fields": list(rule.fields), "nonempty": list(rule.nonempty)}
    remaining = look_alikes(rule, target, others)
    while remaining and options:
        best, best_left = None, remaining
        for option in options:
            trial = _with(rule, chosen, option)
            if not caught(trial, target):
                continue
            left = [s for s in remaining if caught(trial, s)]
            if len(left) < len(best_left) or (best is not None and len(left) == len(best_left)
                                              and option[0] < best[0]):
                best, best_left = option, left
        if best is None:
            break
        chosen[best[1]].append(best[2])
        options = [o for o in options if o[2] != best[2]]
        remaining = best_left
    told = Told(fields=tuple(chosen["fields"][len(rule.fields):]),
                nonempty=tuple(chosen["nonempty"][len(rule.nonempty):]), left=tuple(remaining))
    if remaining:
        matcher = dataclasses.replace(rule, fields=tuple(chosen["fields"]), nonempty=tuple(chosen["nonempty"]))
        values = dict(pairs)
        flags = [p for p in telling_values(matcher, target, remaining, pairs)
                 if is_flag(p, values[p]) and all(is_flag(p, value_of(s, p)) for s in remaining)]
        if flags:
            told = dataclasses.replace(told, equals={flags[0]: values[flags[0]]}, left=())
    return told


def _with(rule: Rule, chosen: dict[str, list[str]], option: tuple[int, str, str]) -> Rule:
    fields, nonempty = list(chosen["fields"]), list(chosen["nonempty"])
    (fields if option[1] == "fields" else nonempty).append(option[2])
    return dataclasses.replace(rule, fields=tuple(fields), nonempty=tuple(nonempty))


def telling_values(rule: Rule, target: Sent, left: list[Sent], pairs: Iterable[tuple[str, Any]]) -> list[str]:
    """Constant fields of the target whose `equals` alone would drop every look-alike in `left` (what to suggest for
    `--equals` when only values tell the requests apart). Flag-shaped fields first (`is_flag`): a
    per-draft id in the matcher would let every other draft's send through; a flag names the kind of submission."""
    pairs = list(pairs)
    out = []
    for path, value in pairs:
        if isinstance(value, (dict, list)) or path in rule.equals:
            continue
        trial = dataclasses.replace(rule, equals={**rule.equals, path: value})
        if caught(trial, target) and not any(caught(trial, s) for s in left):
            out.append(path)
    values = dict(pairs)
    flags = [p for p in out if is_flag(p, values[p]) and all(is_flag(p, value_of(s, p)) for s in left)]
    return flags + [p for p in out if p not in flags]


# What a form sends for a switch, a checkbox or a hidden mode field (Roundcube's `_draft`: '1' saves, '' sends).
FLAG_VALUES = frozenset({"", "0", "1", "true", "false", "on", "off", "yes", "no"})
_ID_NAME = re.compile(r"(?:id|ids|Id|IDs?)$")


def is_flag(path: str, value: Any) -> bool:
    """A flag-shaped field: its value one of FLAG_VALUES (or a boolean, 0, 1) and its name no id's
    (`_draft_saveid=1` is the draft's id, the same shape by value)."""
    if value is MISSING or _ID_NAME.search(path.rsplit(".", 1)[-1]):
        return False
    if isinstance(value, str):
        return value.strip().lower() in FLAG_VALUES
    return isinstance(value, bool) or (isinstance(value, int) and value in (0, 1))


def is_free_text(path: str, value: Any) -> bool:
    """Text a person wrote (a comment, a message: several words), never an id, a flag or a token: the field a
    `nonempty` rule may require (a reply's comment; the take posting the same form leaves it empty)."""
    return (isinstance(value, str) and len(value.split()) > 1 and token_reason(path, value) is None
            and not _ID_NAME.search(path.rsplit(".", 1)[-1]))


def value_of(sent: Sent, path: str) -> Any:
    """The value at `path` in a recorded request (its query when it has no body), MISSING when absent."""
    kind, value = sent.kind, sent.value
    if kind in ("empty", "unavailable") and value is None:
        value = query_params(sent.url)
    found = [lookup(v, path) for v in (value if isinstance(value, list) else [value])]
    return next((f for f in found if f is not MISSING), MISSING)
