"""Check a spec's `writes:` list (the writes that carry the task's values before the final request).

Each item takes the intercept rules' matcher keys (`url` or `url_regex`, `method` (default POST), `fields`,
`nonempty`, `equals`, `query`), checked exactly like an intercept rule's (taskspec/check.py `check_rule`), plus
`expect` (a non-empty mapping of dotted field paths to the values the site must hold) and an optional `name` (a
short label; default `METHOD /path` from the rule). A write is never caught, so it takes no `respond`; a WebSocket
URL is refused (the judges read writes from http.jsonl, which records HTTP requests). Names are unique within a spec.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from taskspec.model import Write, default_write_name

if TYPE_CHECKING:
    from taskspec.check import FieldChecker

MATCHER_KEYS = ("url", "url_regex", "method", "fields", "nonempty", "equals", "query")
WRITE_KEYS = MATCHER_KEYS + ("expect", "name")
DEFAULT_METHODS = ("POST",)


def check_writes(c: FieldChecker, value: Any) -> tuple[Write, ...]:
    """The checked `writes:` list; every problem is added to `c` (FILE:LINE: writes.I.FIELD: message)."""
    if not isinstance(value, list):
        c.bad(("writes",), f"must be a list of write rules, got {_kind(value)}")
        return ()
    writes: list[Write] = []
    seen: dict[str, int] = {}
    for index, item in enumerate(value):
        write = check_write(c, item, index)
        if write is None:
            continue
        if write.name in seen:
            c.bad(("writes", index, "name"), f"'{write.name}' is also the name of writes.{seen[write.name]}; "
                                             "give each write its own 'name'")
            continue
        seen[write.name] = index
        writes.append(write)
    return tuple(writes)


def check_write(c: FieldChecker, value: Any, index: int) -> Write | None:
    """One write rule, or None (its problems added to `c`)."""
    path = ("writes", index)
    item = c.mapping(value, path, known=WRITE_KEYS)
    if item is None:
        return None
    start = len(c.problems)
    rule = c.check_rule({k: v for k, v in item.items() if k in MATCHER_KEYS}, index, section="writes",
                        known=MATCHER_KEYS)
    if rule is not None and rule.is_websocket:
        c.bad(path + ("url" if rule.url is not None else "url_regex",),
              "a write rule matches HTTP requests (http.jsonl); a WebSocket URL cannot be a write")
    if rule is not None and "method" not in item:
        rule = dataclasses.replace(rule, methods=DEFAULT_METHODS)
    expect = _check_expect(c, item.get("expect"), path + ("expect",)) if "expect" in item else None
    if "expect" not in item:
        c.bad(path + ("expect",), "missing required field (the values the site must hold after this write)")
    name = c.string(item["name"], path + ("name",)) if "name" in item else None
    if len(c.problems) > start or rule is None or expect is None:
        return None
    name = name.strip() if name else default_write_name(rule.methods, rule.url, rule.url_regex)
    return Write(index=index, rule=rule, expect=expect, name=name)


def _check_expect(c: FieldChecker, value: Any, path: tuple[Any, ...]) -> dict[str, Any] | None:
    expect = c.mapping(value, path)
    if expect is None:
        return None
    if not expect:
        c.bad(path, "must not be empty (a write judged for nothing is no write: name the fields it carries)")
        return None
    from taskspec.check import _is_dotted  # (check.py imports this module)

    for key in expect:
        if isinstance(key, str) and not _is_dotted(key):
            c.bad(path + (key,), f"bad dotted path '{key}' (empty segment or surrounding spaces)")
    return dict(expect)


def _kind(value: Any) -> str:
    from taskspec.check import kind

    return kind(value)
