"""Load and check task specs: every problem becomes `FILE:LINE: field: message`, raised together as SpecError.

`load_spec(path)` reads one file; `load_specs(paths)` reads files and directories (recursively: `*.yaml` and
`*.yml`, skipping hidden folders and `files/` folders, which hold user documents) and also rejects an id used
twice. The format is DESIGN.md's "The task spec"; unknown keys are errors at every level except inside the
free-form mappings `user`, `expect` (also a write rule's) and `clawbench`; `writes:` items are checked in
`taskspec/check_writes.py`; a salesforce-scratch `environment` takes the keys in
`taskspec/check_salesforce.py` SF_KEYS (docs/howto/salesforce.md), an `app` one those of
`taskspec/check_app.py`.

`{sites.NAME}` placeholders (the local demo sites' base URLs, each ending in "/", filled in at run time by
clawrec/taskfile.py) are accepted wherever a URL goes: `start_url: "{sites.travel}"`,
`url: "{sites.travel}api/bookings*"`, `url_regex: '{sites.travel}api/pay/\\d+'`. They are checked as if they
were `http://127.0.0.1:9/`.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import math
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from taskspec.model import (
    CATEGORIES, ENVIRONMENT_KINDS, HTTP_METHODS, SPEC_VERSION, WEBSOCKET_PREFIXES, EnvironmentSpec, Limits, Respond,
    Rule, Spec, glob_problem,
)
from taskspec import secrets as spec_secrets
from taskspec.check_reach import check_files_inside, check_start_page
from taskspec.check_writes import check_writes
from taskspec.placeholders import stand_in as stand_in_sites
from taskspec.yaml_source import FieldPath, LineMap, Problem, SpecError, dotted, read_spec_bytes, read_yaml
from taskspec.regex_engine import regex_problem

__all__ = ["FieldChecker", "Problem", "SpecError", "check_spec_data"]

TOP_KEYS = ("version", "id", "category", "instruction", "start_url", "user", "files", "limits", "intercept",
            "verify", "expect", "volatile", "exact", "reference", "environment", "judge_context", "clawbench",
            "secrets", "answer", "terminal", "writes")
TERMINAL = ("block", "land")  # land: the terminal request is recorded and reaches the site (a state judge decides)
REQUIRED = ("version", "id", "instruction", "start_url")
RULE_KEYS = ("url", "url_regex", "method", "fields", "nonempty", "equals", "query", "respond")
RESPOND_KEYS = ("status", "json", "body", "headers")
ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
SPEC_SUFFIXES = (".yaml", ".yml")


def kind(value: Any) -> str:
    """A value's YAML kind, for messages like 'must be a string, got a list'."""
    if value is None:
        return "null"
    for typ, name in ((bool, "a boolean"), (int, "an integer"), (float, "a number"), (str, "a string"),
                      (list, "a list"), (dict, "a mapping")):
        if isinstance(value, typ):
            return name
    return f"a {type(value).__name__}"




def _is_dotted(path: str) -> bool:
    return all(seg and seg == seg.strip() for seg in path.split("."))


class FieldChecker:
    """Collects problems for one document; each `check_*` returns the normalized value (or None if bad)."""

    def __init__(self, file: str, lines: LineMap) -> None:
        self.file, self.lines, self.problems = file, lines, []

    def bad(self, path: FieldPath, message: str) -> None:
        self.problems.append(Problem(self.file, self.lines.line(path), dotted(path), message))

    def mapping(self, value: Any, path: FieldPath, known: tuple[str, ...] | None = None,
                required: tuple[str, ...] = ()) -> dict | None:
        if not isinstance(value, dict):
            self.bad(path, f"must be a mapping, got {kind(value)}")
            return None
        for key in value:
            if not isinstance(key, str):
                self.bad(path + (str(key),), f"keys must be strings, got {kind(key)}")
            elif known is not None and key not in known:
                close = difflib.get_close_matches(key, known, n=1)
                hint = f"; did you mean '{close[0]}'?" if close else f" (expected one of: {', '.join(known)})"
                self.bad(path + (key,), f"unknown key{hint}")
        for key in required:
            if key not in value:
                self.bad(path + (key,), "missing required field")
        return value

    def string(self, value: Any, path: FieldPath) -> str | None:
        if not isinstance(value, str):
            self.bad(path, f"must be a string, got {kind(value)}")
            return None
        if not value.strip():
            self.bad(path, "must not be empty")
            return None
        return value

    def strings(self, value: Any, path: FieldPath, dotted_paths: bool = False) -> tuple[str, ...]:
        if not isinstance(value, list):
            self.bad(path, f"must be a list of strings, got {kind(value)}")
            return ()
        out = []
        for i, item in enumerate(value):
            text = self.string(item, path + (i,))
            if text is not None and dotted_paths and not _is_dotted(text):
                self.bad(path + (i,), f"bad dotted path '{text}' (empty segment or surrounding spaces)")
            elif text is not None:
                out.append(text)
        return tuple(out)

    def string_map(self, value: Any, path: FieldPath) -> dict[str, str]:
        mapping = self.mapping(value, path) or {}
        for key, item in mapping.items():
            if isinstance(key, str) and not isinstance(item, str):
                self.bad(path + (key,), f"must be a string, got {kind(item)}")
        return dict(mapping)

    def number(self, value: Any, path: FieldPath, integer: bool) -> Any:
        ok = isinstance(value, int if integer else (int, float)) and not isinstance(value, bool)
        if not ok or not math.isfinite(value) or value <= 0:
            self.bad(path, f"must be a positive {'integer' if integer else 'number'}, got {value!r}")
            return None
        return value

    def relative_path(self, value: Any, path: FieldPath, base: Path, want_dir: bool) -> Path | None:
        text = self.string(value, path)
        if text is None:
            return None
        if Path(text).is_absolute():
            self.bad(path, f"must be a path relative to the spec's folder, got '{text}'")
            return None
        resolved = (base / text).resolve()
        what = "directory" if want_dir else "file"
        if not resolved.exists():
            self.bad(path, f"{what} not found: {text}")
        elif resolved.is_dir() != want_dir:
            self.bad(path, f"not a {what}: {text}")
        else:
            return resolved
        return None

    # --- sections -------------------------------------------------------------------------------------------

    def check_id(self, value: Any, spec_path: Path) -> str | None:
        ident = self.string(value, ("id",))
        if ident is None:
            return None
        if not ID_RE.fullmatch(ident):
            self.bad(("id",), f"'{ident}' must be letters, digits, '.', '_' or '-' (starting with a letter or digit)")
        elif spec_path.name != f"{ident}.yaml":
            self.bad(("id",), f"'{ident}' does not match the file name: the file must be named {ident}.yaml")
        return ident

    def check_start_url(self, value: Any) -> str | None:
        url = self.string(value, ("start_url",))
        if url is None:
            return None
        checked = stand_in_sites(url)
        parts = urlsplit(checked) if not any(c.isspace() for c in checked) else None
        if checked != "about:blank" and not (parts and parts.scheme in ("http", "https") and parts.hostname):
            self.bad(("start_url",), f"must be an http:// or https:// URL (or about:blank), got '{url}'")
            return None
        return url

    def check_limits(self, value: Any) -> Limits:
        limits = self.mapping(value, ("limits",), known=("time_s", "steps")) or {}
        defaults = Limits()
        time_s = self.number(limits["time_s"], ("limits", "time_s"), False) if "time_s" in limits else None
        steps = self.number(limits["steps"], ("limits", "steps"), True) if "steps" in limits else None
        return Limits(time_s=float(time_s or defaults.time_s), steps=int(steps or defaults.steps))

    def check_environment(self, value: Any) -> EnvironmentSpec:
        path = ("environment",)
        env = self.mapping(value, path, required=("kind",)) or {}
        kind_ = env.get("kind")
        if "kind" in env and kind_ not in ENVIRONMENT_KINDS:
            self.bad(path + ("kind",), f"unknown environment kind {kind_!r} (expected one of: "
                                       f"{', '.join(ENVIRONMENT_KINDS)})")
        options = {k: v for k, v in env.items() if k != "kind"}
        if kind_ == "live":
            for key in options:
                self.bad(path + (str(key),), "unknown key (a live environment takes only 'kind')")
        elif kind_ == "salesforce-scratch":
            from taskspec.check_salesforce import check_salesforce_options

            check_salesforce_options(self, options, path)
        elif kind_ == "app":
            from taskspec.check_app import check_app_options

            check_app_options(self, options, path)
        return EnvironmentSpec(kind=kind_ if isinstance(kind_, str) else "live", options=options)

    def check_rule(self, value: Any, index: int, section: str = "intercept",
                   known: tuple[str, ...] = RULE_KEYS) -> Rule | None:
        """One rule's matcher (and `respond`) at `section[index]`; `known`: the keys allowed there."""
        path: FieldPath = (section, index)
        rule = self.mapping(value, path, known=known)
        if rule is None:
            return None
        start = len(self.problems)
        url = url_regex = None
        if ("url" in rule) == ("url_regex" in rule):
            if "url" in rule:
                self.bad(path + ("url_regex",), "use either 'url' (glob) or 'url_regex', not both")
            else:
                self.bad(path, "needs exactly one of 'url' (glob) or 'url_regex'")
        elif "url" in rule:
            url = self.string(rule["url"], path + ("url",))
            problem = glob_problem(stand_in_sites(url)) if url is not None else None
            if problem:
                self.bad(path + ("url",), f"bad glob: {problem}")
        else:
            url_regex = self.string(rule["url_regex"], path + ("url_regex",))
            if url_regex is not None:
                problem = regex_problem(stand_in_sites(url_regex, regex=True))
                if problem:
                    self.bad(path + ("url_regex",), f"bad regex: {problem}")
        websocket = (url or url_regex or "").startswith(WEBSOCKET_PREFIXES)
        methods = self.check_methods(rule["method"], path + ("method",), websocket) if "method" in rule else ()
        fields = self.strings(rule["fields"], path + ("fields",), dotted_paths=True) if "fields" in rule else ()
        nonempty = self.strings(rule["nonempty"], path + ("nonempty",), dotted_paths=True) \
            if "nonempty" in rule else ()
        equals = self.mapping(rule.get("equals", {}), path + ("equals",)) or {}
        for key in equals:
            if isinstance(key, str) and not _is_dotted(key):
                self.bad(path + ("equals", key), f"bad dotted path '{key}' (empty segment or surrounding spaces)")
        query = self.mapping(rule.get("query", {}), path + ("query",)) or {}
        for key, item in query.items():
            items = item if isinstance(item, list) else [item]
            if not items or not all(isinstance(i, (str, int, float, bool)) for i in items):
                self.bad(path + ("query", str(key)), f"must be a string, number or boolean (or a list of them), "
                                                      f"got {kind(item)}")
        respond = self.check_respond(rule["respond"], path + ("respond",), websocket) if "respond" in rule \
            else Respond()
        if len(self.problems) > start:
            return None
        return Rule(index=index, url=url, url_regex=url_regex, methods=methods, fields=fields, nonempty=nonempty,
                    equals=dict(equals),
                    query=dict(query), respond=respond or Respond())

    def check_methods(self, value: Any, path: FieldPath, websocket: bool) -> tuple[str, ...]:
        if websocket:
            self.bad(path, "a WebSocket rule (ws:// or wss://) takes no method")
            return ()
        items = value if isinstance(value, list) else [value]
        if not items:
            self.bad(path, "must not be empty (leave 'method' out to match any method)")
        out: list[str] = []
        for i, item in enumerate(items):
            where = path + (i,) if isinstance(value, list) else path
            if not isinstance(item, str):
                self.bad(where, f"must be a string or a list of strings, got {kind(item)}")
            elif item.upper() not in HTTP_METHODS:
                self.bad(where, f"unknown HTTP method '{item}' (expected one of: {', '.join(HTTP_METHODS)})")
            elif item.upper() not in out:
                out.append(item.upper())
        return tuple(out)

    def check_respond(self, value: Any, path: FieldPath, websocket: bool) -> Respond | None:
        if value == "block":
            return Respond()
        if not isinstance(value, dict):
            self.bad(path, f"must be 'block' or a mapping {{status, json|body, headers}}, got {value!r}")
            return None
        if websocket:
            self.bad(path, "a WebSocket rule can only block (respond: block)")
            return None
        self.mapping(value, path, known=RESPOND_KEYS)
        status = value.get("status", 200)
        if not isinstance(status, int) or isinstance(status, bool) or not 100 <= status <= 599:
            self.bad(path + ("status",), f"must be an HTTP status code 100-599, got {status!r}")
        if "json" in value and "body" in value:
            self.bad(path + ("body",), "use either 'json' or 'body', not both")
        body = value.get("body")
        if body is not None and not isinstance(body, str):
            self.bad(path + ("body",), f"must be a string, got {kind(body)}")
        headers = self.string_map(value["headers"], path + ("headers",)) if "headers" in value else {}
        return Respond(action="fulfill", status=status if isinstance(status, int) else 200, headers=headers,
                       json=value.get("json"), body=body if isinstance(body, str) else None)


def check_spec_data(data: Any, *, file: str, spec_path: Path, lines: LineMap | None = None,
                    raw: bytes | None = None, allow_outside_files: bool = False) -> tuple[list[Problem], Spec | None]:
    """Check parsed spec data; returns (problems, Spec or None). `spec_path` is the real path (file name, folder);
    `raw` the file's bytes (for `sha256`; read from `spec_path` when not given); `allow_outside_files`: listed
    files may resolve outside the spec's folder (taskspec/check_reach.py)."""
    c = FieldChecker(file, lines or LineMap())
    doc = c.mapping(data, (), known=TOP_KEYS, required=REQUIRED)
    if doc is None:
        return c.problems, None
    if "version" in doc and (doc["version"] != SPEC_VERSION or isinstance(doc["version"], bool)):
        c.bad(("version",), f"must be {SPEC_VERSION}, got {doc['version']!r}")
    ident = c.check_id(doc["id"], spec_path) if "id" in doc else None
    instruction = c.string(doc["instruction"], ("instruction",)) if "instruction" in doc else None
    start_url = c.check_start_url(doc["start_url"]) if "start_url" in doc else None
    category = doc.get("category", "daily")
    if category not in CATEGORIES:
        c.bad(("category",), f"unknown category {category!r} (expected one of: {', '.join(CATEGORIES)})")
    base = spec_path.parent
    files = doc.get("files", [])
    if not isinstance(files, list):
        c.bad(("files",), f"must be a list of paths, got {kind(files)}")
        files = []
    resolved_files = tuple(p for i, f in enumerate(files)
                           if (p := c.relative_path(f, ("files", i), base, want_dir=False)) is not None)
    if not allow_outside_files:
        check_files_inside(c, files, base)
    reference = c.relative_path(doc["reference"], ("reference",), base, want_dir=True) if "reference" in doc else None
    limits = c.check_limits(doc["limits"]) if "limits" in doc else Limits()
    rules_raw = doc.get("intercept", [])
    if not isinstance(rules_raw, list):
        c.bad(("intercept",), f"must be a list of rules, got {kind(rules_raw)}")
        rules_raw = []
    rules_list: list[Rule] = []
    for i, item in enumerate(rules_raw):
        if isinstance(item, dict) and "salesforce" in item:  # a helper that expands to several rules
            from taskspec.check_salesforce import check_salesforce_rule

            rules_list += check_salesforce_rule(c, item, i)
        elif (r := c.check_rule(item, i)) is not None:
            rules_list.append(r)
    rules = tuple(dataclasses.replace(r, index=n) for n, r in enumerate(rules_list))
    check_start_page(c, start_url, rules)
    writes = check_writes(c, doc["writes"]) if "writes" in doc else ()
    if doc.get("terminal", "block") not in TERMINAL:
        c.bad(("terminal",), f"must be one of {', '.join(TERMINAL)}, got {doc['terminal']!r}")
    verify = c.strings(doc["verify"], ("verify",)) if "verify" in doc else ()
    volatile = c.strings(doc["volatile"], ("volatile",), dotted_paths=True) if "volatile" in doc else ()
    exact = c.strings(doc["exact"], ("exact",), dotted_paths=True) if "exact" in doc else ()
    for i, path in enumerate(doc["exact"] if isinstance(doc.get("exact"), list) else []):
        if isinstance(path, str) and path in volatile:
            c.bad(("exact", i), f"'{path}' is also volatile (never compared); keep it in one list")
    user = c.mapping(doc.get("user", {}), ("user",)) or {}
    secret_paths, env = spec_secrets.check(c, user, doc.get("secrets"))
    expect = c.mapping(doc.get("expect", {}), ("expect",)) or {}
    clawbench = c.mapping(doc.get("clawbench", {}), ("clawbench",)) or {}
    judge_context = c.string_map(doc["judge_context"], ("judge_context",)) if "judge_context" in doc else {}
    environment = c.check_environment(doc["environment"]) if "environment" in doc else EnvironmentSpec()
    if "answer" in doc:
        from taskspec.check_answer import check_answer

        answer = check_answer(c, doc["answer"])
    else:
        answer = None
    if c.problems:
        return c.problems, None
    if raw is None:
        raw = spec_path.read_bytes() if spec_path.is_file() else b""
    return [], Spec(path=spec_path.resolve(), sha256=hashlib.sha256(raw).hexdigest(), id=ident,
                    instruction=instruction, start_url=start_url, category=category, user=dict(user),
                    files=resolved_files, limits=limits, intercept=rules, writes=writes, verify=verify, expect=dict(expect),
                    volatile=volatile, exact=exact, reference=reference, environment=environment, raw=doc,
                    judge_context=judge_context, clawbench=dict(clawbench), secrets=secret_paths, env=env,
                    answer=answer)
