"""Pure rule matching (spec v1): URL (glob or anchored regex, see taskspec/model.py), method(s), `fields` (dotted
paths that must be present), `nonempty` (paths whose value must not be empty), `equals` (constant values), `query` (URL parameters). No browser here.

Semantics worth knowing:
- Paths look into the decoded body; a body without content (GET) is looked up in the URL's query parameters.
- A JSON list body (batched GraphQL) matches when ANY element satisfies the rule on its own.
- Field paths mean what taskspec.fieldpath says (bracket form keys, JSON in strings, `*`, GraphQL `variables`).
- `nonempty` tells a reply from a take that posts the same form with the text left empty: empty is missing, null,
  "", [] or {} (taskspec.fieldpath.is_nonempty); a repeated form key is non-empty when any of its values is.
- `equals` compares loosely across types because forms carry strings: 5 == "5", true == "true"; a repeated form
  key (a list) matches when any of its values does.
- Helper-built rules only (taskspec/salesforce_save.py): `prefix` (a string value starts with: a record id's key
  prefix) and `each` (a path whose elements are tried one by one, so that all conditions hold in the SAME Aura
  action of a batch, never across a read and a save).
"""

from __future__ import annotations


from typing import Any, Iterable
from urllib.parse import parse_qsl, urlsplit

from taskspec.fieldpath import MISSING, is_nonempty, lookup, starts_with, values_equal  # noqa: F401  (the one field-path meaning)
from taskspec.limits import loads_bounded
from taskspec.payload import Body, form_dict
from taskspec.model import Rule, url_matcher
from taskspec.regex_engine import LinearPattern

def query_params(url: str) -> dict[str, Any]:
    return form_dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))


def body_candidates(body: Body, url: str) -> list[Any]:
    """What the rule's paths look into: each element of a batched list, the body, or the URL query."""
    if body.kind == "empty":
        return [query_params(url)]
    if isinstance(body.value, list):
        return list(body.value)
    return [body.value]


def satisfies(rule: Rule, value: Any) -> bool:
    if rule.each is not None:  # every path below is looked up in one element (one Aura action) at a time
        found = lookup(value, rule.each)
        return any(_holds(rule, v) for v in (found if isinstance(found, list) else []))
    return _holds(rule, value)


def _holds(rule: Rule, value: Any) -> bool:
    return (all(lookup(value, f) is not MISSING for f in rule.fields)
            and all(is_nonempty(lookup(value, f)) for f in rule.nonempty)
            and all(values_equal(lookup(value, k), v) for k, v in rule.equals.items())
            and all(starts_with(lookup(value, k), p) for k, p in rule.prefix.items()))


def url_re(url: str | None, url_regex: str | None) -> LinearPattern:
    """A rule's compiled URL matcher (RE2, linear time), built once per pattern."""
    return url_matcher(url, url_regex)


def could_match(rule: Rule, method: str, url: str) -> bool:
    """URL and method only: the fast path that lets every other request continue at once."""
    return (not rule.is_websocket and rule.matches_method(method)
            and url_re(rule.url, rule.url_regex).fullmatch(url.split("#", 1)[0]) is not None)


def needs_body(rule: Rule) -> bool:
    return bool(rule.fields or rule.nonempty or rule.equals or rule.prefix or rule.each)


def matches(rule: Rule, method: str, url: str, body: Body) -> bool:
    """The full rule: URL, method, query, then fields/equals on any candidate."""
    if not could_match(rule, method, url):
        return False
    if rule.query:
        q = query_params(url)
        if not all(values_equal(q.get(k, MISSING), v) for k, v in rule.query.items()):
            return False
    if not needs_body(rule):
        return True
    return any(satisfies(rule, c) for c in body_candidates(body, url))


def first_match(rules: Iterable[Rule], method: str, url: str, body: Body) -> Rule | None:
    for rule in rules:
        if matches(rule, method, url, body):
            return rule
    return None


def websocket_message_matches(rule: Rule, ws_url: str, message: Any) -> bool:
    """A WebSocket rule against one sent message (JSON-decoded when possible); mirrors wsguard's JS."""
    if not rule.is_websocket or not rule.matches_url(ws_url):
        return False
    if isinstance(message, str):
        try:
            message = loads_bounded(message)
        except ValueError:  # not JSON (or too deep): matched as text
            pass
    values = message if isinstance(message, list) else [message]
    return any(satisfies(rule, v) for v in values) if needs_body(rule) else True
