"""Fetch.enable patterns that pause only what a rule can match (narrowing): the interceptor's live concern, kept
beside it; the rule predicate itself is taskspec.match (one meaning offline and live)."""

from __future__ import annotations

import re
from typing import Iterable

try:  # Python >= 3.11 keeps the parser private under these names
    from re import _constants as _re_constants, _parser as _re_parser
except ImportError:  # pragma: no cover
    import sre_constants as _re_constants  # type: ignore[no-redef]
    import sre_parse as _re_parser  # type: ignore[no-redef]

from taskspec.model import Rule

_FETCH_SPECIAL = re.compile(r"[*?\\]")


def fetch_patterns(rules: Iterable[Rule]) -> list[dict[str, str]]:
    """Fetch.enable patterns that pause only what can match (narrowing, issue item 9).

    Provably safe: each HTTP rule with a glob becomes its literal prefix + `*` (Chrome's `*` spans anything, so the
    pattern is a superset of the glob). Chrome re-checks patterns on every redirect hop (measured: a POST answered by
    a 307 to a narrowed terminal URL pauses), so redirects stay covered. A `url_regex` (fullmatch: anchored) gives
    its literal prefix (`regex_prefix`). A prefix that does not reach past the host (or anything unusual) falls back
    to pausing everything."""
    patterns: list[str] = []
    for rule in rules:
        if rule.is_websocket:
            continue
        literal = rule.url if rule.url is not None else regex_prefix(rule.url_regex or "")
        m = _FETCH_SPECIAL.search(literal)
        prefix = literal[: m.start()] if m else literal
        scheme, sep, rest = prefix.partition("://")
        host = rest.split("/", 1)[0]
        if not sep or scheme not in ("http", "https") or not host or host != host.lower() or "\\" in prefix:
            return [{"urlPattern": "*", "requestStage": "Request"}]
        patterns.append(prefix + "*")
    return [{"urlPattern": p, "requestStage": "Request"} for p in dict.fromkeys(patterns)]


def regex_prefix(pattern: str) -> str:
    """The literal text every fullmatch of `pattern` starts with ("" when unknown: flags, alternation at the start).

    Why parse instead of scanning characters: escapes (`\\.`), groups and quantifiers on the last literal (`s?`)
    are easy to get wrong by hand; the stdlib parser already knows them."""
    try:
        parsed = _re_parser.parse(pattern)
    except (re.error, RecursionError):
        return ""
    if parsed.state.flags & (re.IGNORECASE | re.VERBOSE):
        return ""
    out: list[str] = []
    for op, arg in parsed:
        if op is _re_constants.LITERAL:
            out.append(chr(arg))
        elif op is _re_constants.AT and arg is _re_constants.AT_BEGINNING:
            continue  # `^` is implied by fullmatch
        else:
            break
    return "".join(out)
