"""The terminal request: ONE meaning for the judges, diagnose and check-spec.

A recorded run's terminal request is the one that would have had the task's side effect: the first request a rule
caught; in a person's hold-mode run, the last request the person blocked (its record has `rule: null`, `action:
held_blocked`: a person, not a rule, stopped it), else the last one hold mode blocked at its timeout. Whether such a
request fits one of a spec's rules is decided by `taskspec.match` on the recorded request itself (URL, method,
decoded body), exactly as the live interceptor decides, never from the rule name the recorder wrote: a hold-mode
reference is a first-class reference, and a spec edited since the run is judged as it is now.

Runs of the local sites get random ports: a record is matched against rules filled for ANOTHER run (the judged
run's `{sites.NAME}`) by moving its URL onto that run's site bases (`rebase`).

`could_be_terminal`: a request to a rule's URL and method that the rule did not catch is a near miss (a submission
with a wrong value) only when its payload could be that submission; a page's own GraphQL read (Products,
Recommendations on load), another GraphQL operation than the one the rule names, or a request carrying none of the
rule's required fields is "not a submission". Pure data: no browser, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from taskspec import placeholders
from taskspec.fieldpath import MISSING, is_graphql, lookup
from taskspec.generalize import graphql_reads_only
from taskspec.match import body_candidates, could_match, matches, websocket_message_matches
from taskspec.model import Rule
from taskspec.payload import Body

CAUGHT = ("blocked", "fulfilled", "landed")  # a rule's catch (interceptions.jsonl `action`)
HELD = "held_blocked"                        # hold mode's block: a person's (or the timeout's), never a rule's
PERSON = ("terminal", "page")                # who blocked a held request on purpose (not the timeout)
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _get(rec: Any, key: str) -> Any:
    return rec.get(key) if isinstance(rec, Mapping) else getattr(rec, key, None)


def action(rec: Any) -> str:
    """blocked | fulfilled | landed | held_blocked (`true`: runs recorded before the action was named)."""
    value = _get(rec, "action")
    return "blocked" if value is True or value is None else str(value)


def person_blocked(rec: Any) -> bool:
    held = _get(rec, "held")
    return action(rec) == HELD and isinstance(held, Mapping) and held.get("by") in PERSON


def terminal_order(catches: Sequence[Any]) -> list[Any]:
    """interceptions.jsonl records, the most terminal first: rule catches in order; then the person's blocks, the
    last decision first (a person who pressed submit again blocks the same submission again); then timeouts."""
    caught = [c for c in catches if action(c) != HELD]
    person = [c for c in catches if person_blocked(c)]
    timeouts = [c for c in catches if action(c) == HELD and not person_blocked(c)]
    return caught + person[::-1] + timeouts[::-1]


def rebase(url: str, sites: Mapping[str, str] | None, to: Mapping[str, str] | None) -> str:
    """`url` recorded in a run with local sites `sites` (name -> base URL), moved onto the bases `to` of another run
    (unchanged when either is unknown or no base fits)."""
    if not sites or not to:
        return url
    for name, base in sorted(sites.items(), key=lambda kv: -len(str(kv[1]))):
        base = str(base).rstrip("/") + "/"
        if name in to and (url.startswith(base) or url + "/" == base):
            return str(to[name]).rstrip("/") + "/" + url[len(base):]
    return url


def body_of(rec: Any) -> Body:
    """The decoded body of an interceptions.jsonl record as the matcher reads it."""
    body, kind = _get(rec, "body"), _get(rec, "body_kind")
    if kind is None:
        kind = "empty" if body is None else "json"
    return Body(str(kind), body)


def fills(rule: Rule, method: str, url: str, body: Body) -> bool:
    """The live interceptor's decision for one request (a WebSocket message: method WEBSOCKET or WS)."""
    if method.upper() in ("WEBSOCKET", "WS"):
        return websocket_message_matches(rule, url, body.value)
    return matches(rule, method, url, body)


def rule_of(rules: Sequence[Rule], rec: Any, sites: Mapping[str, str] | None = None,
            filled_for: Mapping[str, str] | None = None, endpoint: bool = False) -> Rule | None:
    """The first rule that catches the recorded request `rec` (an interceptions.jsonl record: dict or
    rundir Interception). `sites`: the recording run's local sites; `filled_for`: the sites of the run the rules'
    `{sites.NAME}` are (or are to be) filled for, when that is another run: the record's URL is moved onto them.
    `endpoint`: when no rule catches it, the first rule whose URL and method it was sent to (a judge then reports the
    payload's missing fields or wrong values field by field, not a wrong endpoint)."""
    url = str(_get(rec, "url") or "")
    if filled_for:
        url = rebase(url, sites, filled_for)
    method, body, bases = str(_get(rec, "method") or ""), body_of(rec), filled_for or sites
    # A rule whose `{sites.NAME}` the runs cannot fill (their manifests do not list that site) matches nothing.
    rules = [(rule, f) for rule in rules
             if not unfilled(f := filled(rule, bases) if bases else rule)]
    hit = next((rule for rule, f in rules if fills(f, method, url, body)), None)
    if hit is None and endpoint:
        hit = next((rule for rule, f in rules if sent_to(f, method, url)), None)
    return hit


def sent_to(rule: Rule, method: str, url: str) -> bool:
    """The request went to the rule's endpoint: URL and method (a WebSocket rule: the socket's URL). A rule naming a
    loopback origin fits the same path on another loopback port (local sites get random ports; a run that does not
    list its sites cannot be moved onto the rule's)."""
    if method.upper() in ("WEBSOCKET", "WS"):
        return rule.is_websocket and rule.matches_url(url)
    return could_match(rule, method, url) or could_match(rule, method, _on_rule_port(rule, url))


def _on_rule_port(rule: Rule, url: str) -> str:
    r, u = urlsplit(rule.url or ""), urlsplit(url)
    if r.hostname in LOOPBACK and u.hostname in LOOPBACK and r.scheme == u.scheme and "*" not in r.netloc:
        return urlunsplit(u._replace(netloc=r.netloc))
    return url


def unfilled(rule: Rule) -> bool:
    """The rule still names a `{sites.NAME}` placeholder (no base URL known for it)."""
    return placeholders.has_placeholder(rule.url) or placeholders.has_placeholder(rule.url_regex)


def filled(rule: Rule, sites: Mapping[str, str]) -> Rule:
    """The rule with `{sites.NAME}` in its URL filled with `sites` (unknown names stay)."""
    import dataclasses

    if not (placeholders.has_placeholder(rule.url) or placeholders.has_placeholder(rule.url_regex)):
        return rule
    return dataclasses.replace(rule, url=placeholders.fill(rule.url, sites, strict=False),
                               url_regex=placeholders.fill(rule.url_regex, sites, regex=True, strict=False))


def terminal(catches: Sequence[Any], rules: Sequence[Rule] = (), sites: Mapping[str, str] | None = None,
             filled_for: Mapping[str, str] | None = None, endpoint: bool = False) -> tuple[Any, Rule | None]:
    """(the run's terminal request, its rule) among its interceptions.jsonl records: the most terminal one (see
    `terminal_order`) that a rule catches (`endpoint`: else one sent to a rule's endpoint); when none, the most
    terminal one and None."""
    order = terminal_order(catches)
    for full in (True, False) if endpoint else (True,):
        for rec in order if rules else ():
            if (rule := rule_of(rules, rec, sites, filled_for, endpoint=not full)) is not None:
                return rec, rule
    return (order[0] if order else None), None


def _operations(value: Any) -> list[str]:
    ops = value if isinstance(value, list) else [value]
    return [str(o.get("operationName")) for o in ops if is_graphql(o)]


def could_be_terminal(rule: Rule, method: str, url: str, body: Body) -> bool:
    """A request the rule's URL and method match (the interceptor's fast path) whose payload could be the rule's
    submission: not a GraphQL read, not another GraphQL operation than the rule's `equals.operationName`, and holding
    at least one of the rule's `fields` or `nonempty` paths when it names any. Whether the rule then CATCHES it is `fills`."""
    if not could_match(rule, method, url):
        return False
    value = body.value
    if body.kind == "json" and graphql_reads_only(value):
        return False
    op = rule.equals.get("operationName")
    if op is not None and _operations(value) and str(op) not in _operations(value):
        return False
    named = (*rule.fields, *rule.nonempty)
    if named and body.kind != "unavailable":
        values = body_candidates(body, url)
        if not any(lookup(v, f) is not MISSING for v in values for f in named):
            return False
    return True
