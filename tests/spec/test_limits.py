"""Issue 16, input limits: spec size and nesting, url_regex on a linear-time engine (docs/reference/limits.md)."""

from __future__ import annotations

import re
import time

import pytest

from clawrec.cli import main
from taskspec import match
from taskspec.load import load_spec
from taskspec.clawbench import search_to_fullmatch
from taskspec.limits import MAX_SPEC_BYTES
from taskspec.model import Rule
from taskspec.regex_engine import compile_regex, regex_problem
from taskspec.yaml_source import SpecError

HEAD = "version: 1\nid: {id}\ninstruction: x\nstart_url: http://127.0.0.1:9/\n"


def write(tmp_path, ident: str, body: str):
    path = tmp_path / f"{ident}.yaml"
    path.write_text(HEAD.format(id=ident) + body)
    return path


def test_spec_larger_than_the_limit_is_one_line(tmp_path, capsys):
    path = write(tmp_path, "big", "verify:\n" + "  - 'check this line of text'\n" * (MAX_SPEC_BYTES // 28 + 10))
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"{path}:1: spec: file is ") and "larger than the limit" in err[0]


def test_endless_file_is_never_read_whole(capsys):
    assert main(["validate", "/dev/zero"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        '/dev/zero:1: spec: file is larger than the limit of 2,097,152 (docs/reference/limits.md)']


def test_nesting_deeper_than_the_limit_is_one_line(tmp_path):
    path = write(tmp_path, "deep", "user:\n  x: " + "[" * 150 + "]" * 150 + "\n")
    with pytest.raises(SpecError) as err:
        load_spec(path)
    assert [str(p) for p in err.value.problems] == [
        f'{path}:6: yaml: nested deeper than 100 levels (docs/reference/limits.md)']


def test_aliases_used_a_few_times_are_fine(tmp_path):
    path = write(tmp_path, "alias", "user:\n  home: &h {street: Main, city: X}\n  work: *h\n  list: [*h, *h, *h]\n")
    assert load_spec(path).user["work"] == {"street": "Main", "city": "X"}


# --- url_regex: RE2, Python's meaning ---------------------------------------------------------------------------

def test_backtracking_regex_cannot_stall_matching():
    """The probe's `(a+)+$` with 29 a's blocked the event loop (a 15 s run took 41.8 s); RE2 is linear."""
    r = Rule(index=0, url_regex=r"http://h/(a+)+$")
    start = time.monotonic()
    for n in (29, 5000, 200_000):
        assert not match.could_match(r, "POST", "http://h/" + "a" * n + "!")
    assert match.could_match(r, "POST", "http://h/" + "a" * 29)
    assert time.monotonic() - start < 10  # backtracking re: 29 a's alone took ~40 s


@pytest.mark.parametrize("pattern, yes, no", [
    (r"(?i)http://h/a{,3}\Z", ["HTTP://h/aa", "http://h/"], ["http://h/aaaa"]),        # {,n} and \Z mean Python's
    (r"http://h/\u0041[^a-c\d]x|y", ["http://h/Adx", "y"], ["http://h/A1x", "http://h/Aax"]),
    (r"http://h/api/pay/\d+", ["http://h/api/pay/12"], ["http://h/api/pay/12/x", "http://evil/http://h/api/pay/1"]),
    (r"(?s:.*)(?:a\.b/c)(?s:.*)", ["https://x/a.b/c?d", "a.b/c"], ["https://x/aXb/c"]),   # the ClawBench shape
    (r"http://h/[\W_]+", ["http://h/-_!"], ["http://h/a"]),
])
def test_regex_keeps_python_semantics(pattern, yes, no):
    rx = compile_regex(pattern)
    for url in yes + no:
        assert bool(rx.fullmatch(url)) == bool(re.fullmatch(pattern, url)) == (url in yes), url


@pytest.mark.parametrize("pattern, words", [
    (r"http://h/(?=x)x", "lookahead/lookbehind"),
    (r"http://h/(a)\1", "backreferences"),
    (r"http://h/a{2000}", "repeat count over 1000"),
    (r"http://h/(?>a)", "atomic groups"),
])
def test_validate_refuses_what_re2_cannot_run(tmp_path, capsys, pattern, words):
    path = write(tmp_path, "rx", f"intercept:\n  - url_regex: '{pattern}'\n")
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"{path}:6: intercept.0.url_regex: bad regex: ") and words in err[0]


def test_clawbench_conversion_runs_on_re2():
    """import-clawbench's search→fullmatch rewrite (leading flags kept) compiles and keeps re.search's meaning."""
    for pattern, urls in [(r"(?i)api\.example\.com/v\d+/orders", ["https://API.example.com/v2/orders?x", "x"]),
                          (r"^https://h/submit$", ["https://h/submit", "https://h/submit/x"])]:
        converted = search_to_fullmatch(pattern)
        assert regex_problem(converted) is None
        for url in urls:
            assert bool(compile_regex(converted).fullmatch(url)) == bool(re.search(pattern, url))
