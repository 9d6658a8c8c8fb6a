"""Differential test: for every task of the ClawBench corpus (and the hand-written fixtures), requests built from
its eval_schema are decided the same by clawrec's matcher on the imported spec and by ClawBench's predicate
re-stated below. Where clawrec deliberately decides otherwise, the sample names the difference (DIFFERENCES) and the
test checks that it differs exactly that way, and that each named difference really occurs.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import parse_qsl, urlencode, urlsplit

try:  # Python >= 3.11 names the regex parser modules privately
    from re import _constants as C, _parser as P
except ImportError:  # pragma: no cover
    import sre_constants as C, sre_parse as P  # type: ignore[no-redef]

import pytest

from taskspec.load import load_specs
from taskspec.clawbench import PLACEHOLDER
from taskspec.match import first_match
from taskspec.payload import decode
from tests.clawbench.conftest import FIXTURES

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")

# name → (ClawBench decides, clawrec decides): what clawrec does on purpose
DIFFERENCES = {
    "placeholder": (True, False),          # ClawBench re.search()es the placeholder text; clawrec has no rule at all
    "form values are strings": (False, True),   # `commit=1` in a form equals the constant 1 (ClawBench: "1" != 1)
    "query values are strings": (False, True),  # `?seats=2` equals params {seats: 2}
    "booleans are not numbers": (True, False),  # JSON true == 1 in Python; clawrec compares true only with true
    "graphql variables": (False, True),    # a key of a GraphQL operation's `variables` counts (not operationName)
    "empty body reads the query": (False, True),  # a body-less request's constraint keys are read from its URL query
    "dotted keys reach nested fields": (False, True),  # body key `meta.source` also finds {"meta": {"source": …}}
    "method names ignore case": (False, True),  # schema `post` (a fixture): ClawBench compares it exactly with the
}                                              # browser's `POST` (counted where it is the only difference)


# --- ClawBench's predicate, re-stated (re.search + exact method + flat equality, any element of a JSON list) ---
def clawbench_body(raw: bytes) -> Any:
    """JSON, else an urlencoded form (flat, string values), else the raw string."""
    text = raw.decode("utf-8", "replace")
    try:
        return json.loads(text)
    except ValueError:
        pass
    if "=" in text:
        return dict(parse_qsl(text, keep_blank_values=True))
    return text


def clawbench_matches(schema: dict[str, Any], method: str, url: str, raw: bytes) -> bool:
    if not re.search(schema["url_pattern"], url) or method != schema["method"]:
        return False
    if schema.get("params"):
        query = dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))
        if any(k not in query or query[k] != v for k, v in schema["params"].items()):
            return False
    if schema.get("body"):
        body = clawbench_body(raw)
        items = body if isinstance(body, list) else [body]
        return any(isinstance(it, dict) and all(k in it and it[k] == v for k, v in schema["body"].items())
                   for it in items)
    return True


# --- samples built from the eval_schema -----------------------------------------------------------------------
def _member(items: list, ch: str) -> bool:
    for op, av in items:
        if op is C.LITERAL and chr(av) == ch or op is C.RANGE and av[0] <= ord(ch) <= av[1]:
            return True
        if op is C.CATEGORY and (av is C.CATEGORY_DIGIT and ch.isdigit() or av is C.CATEGORY_WORD
                                 and (ch.isalnum() or ch == "_") or av is C.CATEGORY_SPACE and ch.isspace()):
            return True
    return False


def example(node: Any, pick: int) -> str:
    """A string the parsed regex matches; `pick` chooses among alternatives and optional parts."""
    out = []
    for op, av in node:
        if op is C.LITERAL:
            out.append(chr(av))
        elif op is C.NOT_LITERAL:
            out.append("a" if chr(av) != "a" else "b")
        elif op is C.ANY:
            out.append("x")
        elif op is C.IN:
            negate = bool(av) and av[0][0] is C.NEGATE
            items = av[1:] if negate else av
            out.append(next(ch for ch in "a7xZ-_.q0" if _member(items, ch) != negate))
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT):
            low, high, sub = av
            count = min(max(low, pick % 2), high)
            out.append("".join(example(sub, pick) for _ in range(count)))
        elif op is C.SUBPATTERN:
            out.append(example(av[-1], pick))
        elif op is C.BRANCH:
            out.append(example(av[1][pick % len(av[1])], pick))
        elif op is C.AT:
            continue
        else:
            raise AssertionError(f"no example for regex op {op}")
    return "".join(out)


def urls_for(pattern: str) -> tuple[list[str], list[str]]:
    """(URLs built to contain a match, near misses); both are decided by both predicates."""
    tree = P.parse(pattern)
    cores = list(dict.fromkeys(example(tree, pick) for pick in range(4)))
    hits, misses = [], ["https://example.org/", "https://example.org/api/submit?x=1"]
    for core in cores:
        url = core if core.startswith("http") else (f"https://127.0.0.1:7878{core}" if core.startswith("/")
                                                    else f"https://{core}")
        hits += [url, url + "?ref=a&b=2", url + "/more/path", "https://other.example/go?to=" + url]
        if not core.startswith(("http", "/")):
            hits.append("https://www." + core)
        misses.append(url.replace(".", "-"))
    return hits, misses


class Sample(NamedTuple):
    method: str
    url: str
    body: bytes
    ctype: str
    difference: str | None = None


def body_samples(schema: dict[str, Any], url: str) -> list[Sample]:
    method, want = schema["method"].upper(), schema.get("body") or {}
    extra = {"unrelated": "x"}
    json_ct, form_ct = "application/json", "application/x-www-form-urlencoded"

    def js(value: Any) -> bytes:
        return json.dumps(value).encode()

    out = [Sample(method, url, b"", ""), Sample(method, url, js({**extra, **want}), json_ct),
           Sample(method, url, js([extra, {**want, **extra}]), json_ct), Sample(method, url, js([extra]), json_ct)]
    if not want:
        return out + [Sample(method, url, b"a=1&b=2", form_ct)]
    out += [Sample(method, url, js(extra), json_ct),
            Sample(method, url, js({k: f"{v}-other" for k, v in want.items()}), json_ct)]
    strings = all(isinstance(v, str) for v in want.values())
    out.append(Sample(method, url, urlencode({**want, **extra}).encode(), form_ct,
                      None if strings else "form values are strings"))
    gql = {k: v for k, v in want.items() if k != "operationName"}
    out.append(Sample(method, url, js({"query": "mutation M { m }", "operationName": "M", "variables": want}), json_ct,
                      "graphql variables" if not want.keys() - gql.keys() and gql else None))
    sep = "&" if "?" in url else "?"
    out.append(Sample(method, url + sep + urlencode(want), b"", "", "empty body reads the query"))
    if any(v == 1 and type(v) is int for v in want.values()):
        out.append(Sample(method, url, js({k: True if v == 1 else v for k, v in want.items()}), json_ct,
                          "booleans are not numbers"))
    for key, value in want.items():
        if "." in key:
            head, _, rest = key.partition(".")
            out.append(Sample(method, url, js({**{k: v for k, v in want.items() if k != key}, head: {rest: value}}),
                              json_ct, "dotted keys reach nested fields"))
    return out


def samples(schema: dict[str, Any]) -> list[Sample]:
    """Requests as a browser sends them (upper-case methods, no #fragment) around the schema's pattern."""
    pattern, method = schema["url_pattern"], schema["method"].upper()
    if pattern == PLACEHOLDER:
        url = f"https://site.example/{PLACEHOLDER}"
        return [Sample(method, url, b"", "", "placeholder"), Sample(method, "https://site.example/", b"", "")]
    hits, misses = urls_for(pattern)
    params = schema.get("params") or {}
    if params:
        query = urlencode(params)
        strings = all(isinstance(v, str) for v in params.values())
        hits = [f"{u}{'&' if '?' in u else '?'}{query}" for u in hits] + hits
    out = []
    for i, url in enumerate(hits):
        q_diff = None if not params or strings or query not in url else "query values are strings"
        if i == 0 or q_diff:  # every body shape once, on the first URL (and where the query differs)
            out += [s._replace(difference=s.difference or q_diff) for s in body_samples(schema, url)]
        out += [Sample(m, url, b"", "", q_diff if m == method else None) for m in METHODS]
    out += [Sample(m, url, b"", "") for url in misses for m in (method, "GET")]
    return out


# --- the test ---------------------------------------------------------------------------------------------------
def _imported(out: Path) -> list[tuple[Any, dict[str, Any]]]:
    return [(spec, spec.clawbench["eval_schema"]) for spec in load_specs([out])]


@pytest.fixture(scope="module")
def fixture_specs(tmp_path_factory):
    from clawrec.cli import main

    out = tmp_path_factory.mktemp("fixtures") / "out"
    assert main(["import-clawbench", str(FIXTURES), str(out)]) == 0
    return _imported(out)


def test_clawrec_decides_like_clawbench_except_named_differences(corpus_specs, fixture_specs):
    tasks = [(spec, spec.clawbench["eval_schema"]) for spec in corpus_specs] + fixture_specs
    assert len(tasks) == 320 + len(list(FIXTURES.rglob("task.json")))
    seen: Counter[str] = Counter()
    outcomes: Counter[tuple[bool, bool]] = Counter()
    wrong = []
    for spec, schema in tasks:
        decided = Counter()
        upper = {**schema, "method": schema["method"].upper()}
        for s in samples(schema):
            theirs = clawbench_matches(upper, s.method, s.url, s.body)
            if clawbench_matches(schema, s.method, s.url, s.body) != theirs:
                assert (False, True) == DIFFERENCES["method names ignore case"] and theirs, spec.id
                seen["method names ignore case"] += 1
            ours = first_match(spec.intercept, s.method, s.url, decode(s.body, s.ctype)) is not None
            expected = DIFFERENCES[s.difference] if s.difference else (theirs, theirs)
            if (theirs, ours) != expected:
                wrong.append(f"{spec.id}: {s.method} {s.url} {s.body[:80]!r}: ClawBench {theirs}, clawrec {ours}"
                             + (f" (expected the named difference {s.difference!r})" if s.difference else ""))
            seen[s.difference or "same"] += 1
            outcomes[(theirs, ours)] += 1
            decided[ours] += 1
        if spec.intercept:  # not vacuous: every task with a rule has samples caught and samples let through
            assert decided[True] and decided[False], spec.id
    assert not wrong, f"{len(wrong)} samples decided differently:\n" + "\n".join(wrong[:30])
    assert set(DIFFERENCES) <= set(seen), f"named differences that never occurred: {set(DIFFERENCES) - set(seen)}"
    assert outcomes[(True, True)] > 2000 and outcomes[(False, False)] > 5000, outcomes
    assert seen["placeholder"] == 90 + 1  # the corpus and one fixture
