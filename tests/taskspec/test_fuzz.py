"""Fuzz (hypothesis) over what pages and spec authors hand clawrec: the spec loader, the body decoders (JSON,
forms, multipart, GraphQL), the field-path lookup, the rule predicate and the URL regex engine. No exception may
escape except the typed user error (SpecError), and decoding is bounded in time and memory.

`make test` runs FUZZ_EXAMPLES examples per property, derandomized (the same examples every run, so CI cannot
flake); `make fuzz` runs many more, random (CLAWREC_FUZZ_EXAMPLES, default there 3000)."""

from __future__ import annotations

import json
import os
import re
import time
import tracemalloc
import warnings
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from taskspec import fieldpath, match, payload
from taskspec.check import check_spec_data
from taskspec.limits import MAX_DEPTH, depth_exceeds
from taskspec.model import Rule
from taskspec.regex_engine import RegexError, compile_regex
from taskspec.yaml_source import SpecError, read_yaml

FUZZ_EXAMPLES = int(os.environ.get("CLAWREC_FUZZ_EXAMPLES", "40"))
LONG = "CLAWREC_FUZZ_EXAMPLES" in os.environ
fuzz = settings(max_examples=FUZZ_EXAMPLES, derandomize=not LONG, database=None, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

SPEC_PATH = Path("/nonexistent/fuzz.yaml")
KEYS = ["version", "id", "instruction", "start_url", "user", "files", "limits", "intercept", "verify", "expect",
        "volatile", "exact", "reference", "environment", "category", "url", "url_regex", "method", "fields",
        "nonempty", "equals", "query", "respond", "time_s", "steps", "kind", "a.b", "0", ""]
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=30),
                    st.sampled_from(["http://h/x", "**", "{sites.travel}", "(a+)+$", "POST", "about:blank", "1"]))
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=8), inner, max_size=5)),
    max_leaves=15)
paths = st.lists(st.sampled_from(["a", "b", "0", "1", "*", "x[y]", "variables", "²", "9" * 30, ""]) |
                 st.text(max_size=6), min_size=1, max_size=6).map(".".join)
CONTENT_TYPES = ["application/json", "application/x-www-form-urlencoded", "multipart/form-data; boundary=XyZ",
                 'multipart/form-data; boundary="q q"', "text/plain", "", "application/graphql+json", "image/png"]


def load_bytes(raw: bytes) -> None:
    """What load_spec does after reading the file: every outcome but SpecError is a bug."""
    try:
        source = read_yaml(raw, str(SPEC_PATH))
        check_spec_data(source.data, file=str(SPEC_PATH), spec_path=SPEC_PATH, lines=source.lines, raw=raw)
    except SpecError:
        pass


@fuzz
@given(st.binary(max_size=400))
def test_spec_loader_on_bytes(raw):
    load_bytes(raw)


@fuzz
@given(st.dictionaries(st.sampled_from(KEYS), json_values, max_size=6), st.booleans())
def test_spec_loader_on_yaml_shaped_data(doc, base):
    if base:
        doc = {"version": 1, "id": "fuzz", "instruction": "x", "start_url": "http://h/", **doc}
    load_bytes(yaml.safe_dump(doc, allow_unicode=True).encode())


@fuzz
@given(st.text(alphabet="[]{}&*:-,'\"\n #!|>?%@`ab1", max_size=200))
def test_spec_loader_on_yaml_syntax_soup(text):
    load_bytes(text.encode())


def body_strategy():
    graphql = st.lists(st.fixed_dictionaries({"operationName": st.text(max_size=8), "query": st.text(max_size=20),
                                              "variables": json_values}), max_size=3).map(json.dumps)
    form = st.lists(st.tuples(st.text(max_size=8), st.text(max_size=8)), max_size=8).map(
        lambda pairs: "&".join(f"{k}={v}" for k, v in pairs))
    part = st.tuples(st.text(max_size=8), st.none() | st.text(max_size=8), st.binary(max_size=30), st.booleans())

    def multipart(parts):
        out = b""
        for name, filename, content, gap in parts:
            disp = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename is not None else "")
            out += (b"--XyZ\r\nContent-Disposition: " + disp.encode("utf-8", "replace") + b"\r\n\r\n"
                    + (payload.GAP if gap else content) + b"\r\n")
        return out + b"--XyZ--\r\n"

    deep = st.integers(1, 3000).map(lambda n: "[" * n + "]" * n)
    return st.one_of(st.binary(max_size=300), json_values.map(json.dumps), graphql, form, deep,
                     st.lists(part, max_size=5).map(multipart)).map(lambda b: b if isinstance(b, bytes) else b.encode())


@fuzz
@given(body_strategy(), st.sampled_from(CONTENT_TYPES) | st.text(max_size=40), st.booleans(), paths, json_values)
def test_decoders_field_paths_and_rules(raw, ctype, complete, path, expected):
    body = payload.decode(raw, ctype, (), complete)
    assert body.kind in ("json", "urlencoded", "multipart", "text", "binary", "empty", "unavailable")
    assert body.value is None or not depth_exceeds(body.value, MAX_DEPTH)
    body.raw_text()
    found = fieldpath.lookup(body.value, path)
    fieldpath.values_equal(found, expected)
    fieldpath.leaves(body.value)
    rule = Rule(index=0, url="http://h/**", fields=(path,), nonempty=(path,), equals={path: expected},
                query={path: "1"})
    match.matches(rule, "POST", "http://h/x?" + path + "=1", body)


@fuzz
@given(json_values, paths, json_values)
def test_field_paths_on_any_value(value, path, expected):
    fieldpath.values_equal(fieldpath.lookup(value, path), expected)
    fieldpath.leaves(value)
    fieldpath.lookup(json.dumps(value), path)  # JSON held in a string is descended into


@fuzz
@given(st.text(alphabet="ab.*+?|()[]{}^$\\dwsWDSbB0-9,:=!<>Pi", max_size=16),
       st.text(alphabet="aAb-_.9/ é٣²\u2028\x1c", max_size=12))
def test_url_regex_means_what_python_means(pattern, url):
    """Every pattern either compiles on RE2 with Python's meaning (fullmatch) or is refused with RegexError."""
    if "\\b" in pattern.lower() and not url.isascii():
        return  # documented approximation: RE2's \b is an ASCII word boundary (URLs reach us ASCII)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            expected = re.fullmatch(pattern, url) is not None
    except (re.error, RecursionError, OverflowError):
        expected = None
    try:
        got = compile_regex(pattern).fullmatch(url) is not None
    except RegexError:
        return
    assert expected is not None and got == expected, pattern


def test_decoding_is_bounded_in_time_and_memory():
    """The worst bodies a page can send to a terminal URL: each decodes (or is refused) quickly, in little memory."""
    worst = {
        "deep json": ("application/json", b"[" * 200_000 + b"]" * 200_000),
        "deep objects": ("application/json", b'{"a":' * 100_000 + b"1" + b"}" * 100_000),
        "repeated form key": ("application/x-www-form-urlencoded", b"a=1&" * 1_000_000),
        "many parts": ("multipart/form-data; boundary=B", b"--B\r\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n"
                       * 100_000),
        "over the size limit": ("application/json", b"[" + b"0," * 3_000_000 + b"0]"),
    }
    for name, (ctype, raw) in worst.items():
        tracemalloc.start()
        start = time.process_time()
        body = payload.decode(raw, ctype)
        spent = time.process_time() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert body.decode in ("too deep", "too large"), name
        assert spent < 5 and peak < 20 * len(raw) + 50_000_000, (name, spent, peak)
