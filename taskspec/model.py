"""The task spec (YAML `version: 1`; the format is docs/reference/spec.md and DESIGN.md): typed objects every
package reads.

This module is pure data (no browser, no I/O), so evaluator and clawrec may import it. Loading and full
validation with FILE:LINE messages live in taskspec/check.py, reading files in taskspec/load.py (`load_spec`, `load_specs`).

URL matching (what `Rule.matches_url` does, and what the interceptor's matcher uses):
- `url` is a glob matched against the whole URL: `*` matches within one path segment (never `/`), `**` matches
  across segments. A glob without `?` ignores the URL's query string (`.../bookings` matches
  `.../bookings?ref=1`); a glob with `?` matches the query too, where `*` stays within one `&`-separated
  parameter and `**` spans parameters. A `#fragment` is always ignored. Every other character is literal.
- `url_regex` is a Python regex matched with `re.fullmatch` semantics (anchored at both ends), run on RE2 (linear
  time; lookaround and backreferences are refused by the checker). ClawBench's patterns are
  unanchored `re.search` patterns; `clawrec import-clawbench` rewrites them (taskspec/clawbench.py).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from taskspec.regex_engine import LinearPattern, compile_regex

SPEC_VERSION = 1
CATEGORIES = ("daily", "finance", "work", "dev", "academic", "travel", "social", "pets")
HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "CONNECT", "TRACE")
ENVIRONMENT_KINDS = ("live", "salesforce-scratch", "app")
WEBSOCKET_PREFIXES = ("ws://", "wss://", "^ws://", "^wss://", "wss?://", "^wss?://")
GLOB_STARTS = ("http://", "https://", "ws://", "wss://", "*")

# (one star, two stars) for the part before the glob's first `?` and for the query part after it.
_PATH_STARS = ("[^/?#]*", "[^?#]*")
_QUERY_STARS = ("[^&#]*", "[^#]*")


def glob_problem(glob: str) -> str | None:
    """Why `glob` is not a usable URL glob, or None. Shared by the checker and `glob_to_regex`."""
    if not glob:
        return "must not be empty"
    if any(ch.isspace() for ch in glob):
        return "must not contain whitespace (URLs never do)"
    if "***" in glob:
        return "'***' is ambiguous; use '*' (one segment) or '**' (any segments)"
    if not glob.startswith(GLOB_STARTS):
        return ("must start with http://, https://, ws://, wss:// or '*' "
                "(the glob is matched against the whole URL)")
    return None


def _translate(part: str, stars: tuple[str, str]) -> str:
    out: list[str] = []
    for i, chunk in enumerate(part.split("**")):
        if i:
            out.append(stars[1])
        out.append(stars[0].join(re.escape(piece) for piece in chunk.split("*")))
    return "".join(out)


def glob_to_regex(glob: str) -> re.Pattern[str]:
    """Compile a URL glob (see module doc) into an anchored pattern; use it with `fullmatch` (or `match`).

    Raises ValueError for a glob that `glob_problem` rejects."""
    problem = glob_problem(glob)
    if problem:
        raise ValueError(f"bad URL glob {glob!r}: {problem}")
    base, has_query, query = glob.partition("?")
    parts = [r"\A", _translate(base, _PATH_STARS)]
    if has_query:
        parts += [r"\?", _translate(query, _QUERY_STARS), r"(?:#.*)?"]
    else:
        parts.append(r"(?:[?#].*)?")
    parts.append(r"\Z")
    return re.compile("".join(parts), re.DOTALL)


@functools.lru_cache(maxsize=4096)
def url_matcher(url: str | None, url_regex: str | None) -> LinearPattern:
    """A rule's URL matcher, compiled once per (glob, regex): RE2, so no URL can make matching backtrack
    (taskspec/regex_engine.py). Raises ValueError (RegexError) for a bad glob or regex."""
    if url is not None:
        return compile_regex(glob_to_regex(url).pattern, re.DOTALL)
    return compile_regex(url_regex or "")


@dataclass(frozen=True)
class Respond:
    """What a caught request gets: block (Fetch.failRequest) or a fake answer (Fetch.fulfillRequest)."""

    action: str = "block"  # block | fulfill
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    json: Any = None
    body: str | None = None


@dataclass(frozen=True)
class Rule:
    """One terminal-submission rule; any match is caught."""

    index: int
    url: str | None = None          # glob: * within a segment, ** across
    url_regex: str | None = None    # Python re, matched with re.fullmatch (anchored)
    methods: tuple[str, ...] = ()   # empty = any method
    fields: tuple[str, ...] = ()    # dotted paths that must be present
    nonempty: tuple[str, ...] = ()  # dotted paths that must be present and not empty ("", null, [], {})
    equals: dict[str, Any] = field(default_factory=dict)
    query: dict[str, Any] = field(default_factory=dict)  # query parameters that must equal (GET rules)
    respond: Respond = field(default_factory=Respond)
    # Built by helpers only (taskspec/salesforce_save.py), not spec keys: string values that must start with
    # (a Salesforce record id's key prefix), and a path whose elements are judged each on its own (one Aura action).
    prefix: dict[str, str] = field(default_factory=dict)
    each: str | None = None

    @property
    def is_websocket(self) -> bool:
        target = self.url or self.url_regex or ""
        return target.startswith(WEBSOCKET_PREFIXES)

    @property
    def name(self) -> str:
        return f"intercept[{self.index}]"

    @cached_property
    def url_pattern(self) -> LinearPattern:
        """The compiled URL matcher (glob or regex) on RE2 (linear time); always use `fullmatch` with it."""
        return url_matcher(self.url, self.url_regex)

    def matches_url(self, url: str) -> bool:
        return self.url_pattern.fullmatch(url) is not None

    def matches_method(self, method: str) -> bool:
        return not self.methods or method.upper() in self.methods


@dataclass(frozen=True)
class Write:
    """One `writes:` item: a write that carries the task's values to the site BEFORE the final request (an address
    form, a basket update). `rule` is its matcher (the intercept rules' keys; method POST unless given); `expect`
    the values the site must hold after it (dotted field paths, judged like the final request's); `name` a short
    label for verdicts and reports. Never caught: the judges read the last matching request in http.jsonl that
    reached the site before the terminal interception (evaluator/writes_judge.py)."""

    index: int
    rule: Rule
    expect: dict[str, Any]
    name: str

    @property
    def label(self) -> str:
        """`writes[i] (name)`: where the rule lives in the spec, for messages."""
        return f"writes[{self.index}] ({self.name})"


def default_write_name(methods: tuple[str, ...], url: str | None, url_regex: str | None) -> str:
    """`POST /basket/quantity`: the method(s) and the URL's path (a `{sites.NAME}` base and an origin dropped; a
    regex keeps its text after the origin), when a write rule has no `name`."""
    target = url if url is not None else (url_regex or "").lstrip("^").rstrip("$")
    target = re.sub(r"\{sites\.[A-Za-z0-9_]+\}", "/", target)
    target = re.sub(r"^(?:https?|wss?)(?:\?|\\)?:(?:\\?/){2}[^/]*", "", target)
    path = "/" + target.lstrip("/") if target else "/"
    return f"{'|'.join(methods) or 'ANY'} {path}"


@dataclass(frozen=True)
class Limits:
    time_s: float = 1800.0
    steps: int = 100


@dataclass(frozen=True)
class EnvironmentSpec:
    kind: str = "live"
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Answer:
    """Answer mode: the agent submits a free-text answer on a loopback page clawrec serves during the run
    (clawrec/answer_page.py); the `rubric` judge scores it against `rubric` and the `reference` solution."""

    rubric: str
    reference: str | None = None
    url: str | None = None   # the submit page the instruction names; clawrec substitutes its own page's URL


@dataclass(frozen=True)
class Spec:
    """A validated task spec. Paths (`files`, `reference`) are absolute, resolved against the spec's folder."""

    path: Path
    sha256: str
    id: str
    instruction: str
    start_url: str
    category: str = "daily"
    user: dict[str, Any] = field(default_factory=dict)
    files: tuple[Path, ...] = ()
    limits: Limits = field(default_factory=Limits)
    intercept: tuple[Rule, ...] = ()
    writes: tuple[Write, ...] = ()  # earlier writes the payload judge also reads (may be empty: judged as before)
    verify: tuple[str, ...] = ()
    expect: dict[str, Any] = field(default_factory=dict)
    volatile: tuple[str, ...] = ()
    exact: tuple[str, ...] = ()     # payload fields the judge compares verbatim (case and whitespace count)
    reference: Path | None = None
    environment: EnvironmentSpec = field(default_factory=EnvironmentSpec)
    raw: dict[str, Any] = field(default_factory=dict)
    judge_context: dict[str, str] = field(default_factory=dict)  # extra text for the LLM judge (e.g. rubric)
    clawbench: dict[str, Any] = field(default_factory=dict)      # provenance of an imported ClawBench task
    secrets: tuple[str, ...] = ()   # dotted `user` paths whose values never reach a run file (taskspec/secrets.py)
    env: dict[str, tuple[str, int]] = field(default_factory=dict)  # user path -> (environment variable, spec line)
    answer: Answer | None = None                                 # answer mode (free-text answer, rubric judge)
