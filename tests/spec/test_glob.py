"""glob_to_regex: the URL globs of intercept rules (`*` stays in a segment, `**` crosses, queries)."""

from __future__ import annotations

import pytest

from taskspec.model import Rule, glob_problem, glob_to_regex


def matches(glob: str, url: str) -> bool:
    return glob_to_regex(glob).fullmatch(url) is not None


@pytest.mark.parametrize("glob,url,ok", [
    ("http://h/api/*", "http://h/api/bookings", True),
    ("http://h/api/*", "http://h/api/", True),
    ("http://h/api/*", "http://h/api/bookings/42", False),        # * never crosses /
    ("http://h/api/**", "http://h/api/bookings/42", True),        # ** does
    ("http://h/api/**", "http://h/api/", True),
    ("http://h/**/submit", "http://h/a/b/c/submit", True),
    ("http://h/**/submit", "http://h/a/b/c/submit/more", False),
    ("http://h/api/*/submit", "http://h/api/x/y/submit", False),
    ("http://h/api/bookings", "http://h/api/bookings", True),
    ("http://h/api/bookings", "http://h/api/bookingsX", False),   # anchored at the end
    ("http://h/api/bookings", "http://evil/?http://h/api/bookings", False),  # and at the start
    ("http://h/api/bookings", "http://h/api/bookings?ref=a/b&x=1", True),   # no ? in glob: query ignored
    ("http://h/api/bookings", "http://h/api/bookings#top", True),
    ("http://h/api/bookings*", "http://h/api/bookings?ref=1", True),
    ("http://h/search?q=*", "http://h/search?q=flights", True),     # ? in glob: the query is matched
    ("http://h/search?q=*", "http://h/search?q=a/b", True),         # in the query * may contain /
    ("http://h/search?q=*", "http://h/search?q=a&page=2", False),   # but stays within one parameter
    ("http://h/search?q=**", "http://h/search?q=a&page=2", True),
    ("http://h/search?q=*", "http://h/search", False),
    ("http://h/search?q=*", "http://h/search?q=x#frag", True),
    ("https://*.example.com/**", "https://api.example.com/v1/x", True),
    ("https://*.example.com/**", "https://example.com.evil.net/x", False),
    ("*://h/x", "https://h/x", True),
    ("http://h/a.b+c(d)[e]", "http://h/a.b+c(d)[e]", True),        # regex characters are literal
    ("http://h/a.b", "http://h/aXb", False),
    ("ws://127.0.0.1:9/chat/**", "ws://127.0.0.1:9/chat/room/1", True),
])
def test_glob_semantics(glob, url, ok):
    assert matches(glob, url) is ok


def test_pattern_is_anchored_even_with_search():
    assert glob_to_regex("http://h/x").search("see http://h/x") is None


@pytest.mark.parametrize("glob", ["", "api/*", "/api/bookings", "http://h/***", "http://h/a b"])
def test_bad_globs_raise(glob):
    assert glob_problem(glob)
    with pytest.raises(ValueError):
        glob_to_regex(glob)


def test_rule_matches_url_and_method():
    rule = Rule(index=0, url="http://h/api/*", methods=("POST",))
    assert rule.matches_url("http://h/api/book") and not rule.matches_url("http://h/api/book/1")
    assert rule.matches_method("post") and not rule.matches_method("GET")
    regex_rule = Rule(index=1, url_regex=r"http://h/api/\d+")
    assert regex_rule.matches_url("http://h/api/42") and not regex_rule.matches_url("http://h/api/42/x")
    assert Rule(index=2, url="wss://h/socket").is_websocket
