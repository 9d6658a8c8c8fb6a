"""Pure rule matching (spec v1): URL (glob or anchored regex, see taskspec/model.py), method(s), `fields` (dotted
paths that must be present), `equals` (constant values), `query` (URL parameters). No browser here.

Semantics worth knowing:
- Paths look into the decoded body; a body without content (GET) is looked up in the URL's query parameters.
- A JSON list body (batched GraphQL) matches when ANY element satisfies the rule on its own.
- A dotted path also finds flat form keys: `a.b.0` finds a key `a.b.0` or `a[b][0]`; a string holding JSON
  (GraphQL `variables` sent as a form field) is descended into.
- `equals` compares loosely across types because forms carry strings: 5 == "5", true == "true"; a repeated form
  key (a list) matches when any of its values does.
"""

from __future__ import annotations

import json

from typing import Any, Iterable
from urllib.parse import parse_qsl, urlsplit

from taskspec.payload import Body, form_dict
from taskspec.model import Rule, url_matcher
from taskspec.regex_engine import LinearPattern

MISSING = object()


def query_params(url: str) -> dict[str, Any]:
    return form_dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))


def _bracketed(path: str) -> str:
    head, *rest = path.split(".")
    return head + "".join(f"[{p}]" for p in rest)


def lookup(value: Any, path: str) -> Any:
    """The value at a dotted path, or MISSING."""
    if isinstance(value, dict):
        if path in value:
            return value[path]
        alt = _bracketed(path)
        if alt in value:
            return value[alt]
    head, _, rest = path.partition(".")
    if isinstance(value, dict) and head in value:
        nxt = value[head]
    elif isinstance(value, list) and head.isdigit() and int(head) < len(value):
        nxt = value[int(head)]
    else:
        return MISSING
    if not rest:
        return nxt
    if isinstance(nxt, str) and nxt[:1] in ("{", "["):
        try:
            nxt = json.loads(nxt)
        except ValueError:
            return MISSING
    return lookup(nxt, rest)


def values_equal(actual: Any, expected: Any) -> bool:
    if actual is MISSING:
        return False
    if isinstance(actual, list) and not isinstance(expected, list):
        return any(values_equal(a, expected) for a in actual)
    if actual == expected and type(actual) is type(expected):
        return True
    if isinstance(expected, bool) or isinstance(actual, bool):
        return str(actual).lower() == str(expected).lower()
    if isinstance(expected, (int, float)) and not isinstance(actual, (dict, list)):
        try:
            return float(actual) == float(expected)
        except (TypeError, ValueError):
            return False
    if isinstance(expected, (dict, list)) or isinstance(actual, (dict, list)):
        return actual == expected
    return str(actual) == str(expected)


def candidates(body: Body, url: str) -> list[Any]:
    """What the rule's paths look into: each element of a batched list, the body, or the URL query."""
    if body.kind == "empty":
        return [query_params(url)]
    if isinstance(body.value, list):
        return list(body.value)
    return [body.value]


def satisfies(rule: Rule, value: Any) -> bool:
    return (all(lookup(value, f) is not MISSING for f in rule.fields)
            and all(values_equal(lookup(value, k), v) for k, v in rule.equals.items()))


def url_re(url: str | None, url_regex: str | None) -> LinearPattern:
    """A rule's compiled URL matcher (RE2, linear time), built once per pattern."""
    return url_matcher(url, url_regex)


def could_match(rule: Rule, method: str, url: str) -> bool:
    """URL and method only: the fast path that lets every other request continue at once."""
    return (not rule.is_websocket and rule.matches_method(method)
            and url_re(rule.url, rule.url_regex).fullmatch(url.split("#", 1)[0]) is not None)


def needs_body(rule: Rule) -> bool:
    return bool(rule.fields or rule.equals)


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
    return any(satisfies(rule, c) for c in candidates(body, url))


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
            message = json.loads(message)
        except ValueError:
            pass
    values = message if isinstance(message, list) else [message]
    return any(satisfies(rule, v) for v in values) if needs_body(rule) else True
