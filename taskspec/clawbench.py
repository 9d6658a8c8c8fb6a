"""Convert ClawBench task.json data into v1 spec data (pure functions; the CLI does the file I/O).

What changes on the way (each conversion also lists its changes under `clawbench.notes` in the spec):
- `eval_schema.url_pattern` is an unanchored regex matched with `re.search`; clawrec matches `url_regex` with
  `re.fullmatch`, so the pattern `p` becomes `(?s:.*)(?:p)(?s:.*)` (leading inline flags such as `(?i)` are kept
  in front). A URL matches the new pattern with fullmatch exactly when `re.search(p, url)` finds something.
- The placeholder `__PLACEHOLDER_WILL_NOT_MATCH__` becomes a spec with no intercept rule (a note; the CLI counts
  them in its summary line).
- `method` → `method` (upper-cased), `body` (flat key → constant) → `equals`, `params` → `query`.
- `time_limit` (minutes) → `limits.time_s`.
- `metadata.metaclass` → `category`, one of the paper's 8 groups (taskspec/clawbench_categories.py).
- `extra_info[].path` (relative to the task folder) → `files`, copied to `files/<id>/<path>` next to the spec;
  a file that does not exist is left out, with a warning and a note.
- `judge_context` → `judge_context`; `metadata`, the original `eval_schema`, `time_limit` and `extra_info` are
  kept verbatim under `clawbench`.
- id: inside a suite folder (v1, v2, v1-lite, claw-eval) the suite and the source folder (or flat file) name:
  `v1-015-daily-life-housing-craigslist`, `v2-706-…` (the folder's own `v2-` is not repeated), `ce-t045zh-…`;
  elsewhere a string `metadata.task_id` slugified, a numeric one ClawBench's folder convention
  `{task_id:03d}-{metaclass}-{class}-{platform}`, else the task folder's name slugified.
- Answer mode (claw-eval, or any task with `judge_context.rubric` and the `/api/task-submit` pattern): `answer:
  {rubric, reference, url}` (`url`: the submit page the instruction names; clawrec serves its own at run time).
- The user (ClawBench's alex_green_personal_info.json) → `user`, with `email`/`email_password` taken from the
  environment (`{env: NAME}`: secrets, never written in clear); the profile and the résumé → `files`
  (taskspec/clawbench_user.py; the CLI writes them once under OUT/files/clawbench/).
- start_url (ClawBench has none): `https://<site>/` for the first domain in `metadata.sites_involved` (else a
  `metadata.platform` that is a domain), else the host at the start of `url_pattern`, else `about:blank`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from taskspec.check import FieldChecker, kind
from taskspec.clawbench_categories import category_for, in_table
from taskspec.dump import dump_spec  # noqa: F401  (re-exported: the importer writes specs with it)
from taskspec.model import SPEC_VERSION
from taskspec.yaml_source import LineMap, Problem, SpecError, dotted

PLACEHOLDER = "__PLACEHOLDER_WILL_NOT_MATCH__"
TASK_KEYS = ("$schema", "metadata", "instruction", "eval_schema", "time_limit", "extra_info", "judge_context")
EVAL_KEYS = ("url_pattern", "method", "body", "params")

SUITE_PREFIX = {"v1": "v1", "v2": "v2", "v1-lite": "v1-lite", "claw-eval": "ce"}
ANSWER_PATTERN = "/api/task-submit"
_SUBMIT_URL = re.compile(r"https?://(?:127\.0\.0\.1|localhost)(?::\d+)?/[^\s\"'<>)]*")
_DOMAIN = re.compile(r"(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}")
_PATTERN_HOST = re.compile(r"\^?(?:https\?|https|http)?(?::\\?/\\?/)?((?:[A-Za-z0-9-]+(?:\\\.|\.))+[A-Za-z]{2,})")
_LEADING_FLAGS = re.compile(r"\(\?[aiLmsux]+\)")


def search_to_fullmatch(pattern: str) -> str:
    """Rewrite an unanchored `re.search` pattern so that `re.fullmatch` accepts exactly the same strings."""
    flags = ""
    while m := _LEADING_FLAGS.match(pattern):
        flags, pattern = flags + m.group(0), pattern[m.end():]
    return f"{flags}(?s:.*)(?:{pattern})(?s:.*)"


def slugify(text: str) -> str:
    """ASCII, lower case, runs of other characters as '-': usable as a spec id and a file name."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9._]+", "-", ascii_text.lower()).strip("-._") or "task"


def task_id_for(metadata: dict, folder_name: str, suite: str | None = None) -> str:
    """The spec id (see the module doc); `folder_name` is the task folder's name or a flat file's stem."""
    if suite in SUITE_PREFIX:
        prefix, name = SUITE_PREFIX[suite], slugify(folder_name)
        return name if name.startswith(f"{prefix}-") else f"{prefix}-{name}"
    task_id = metadata.get("task_id")
    if isinstance(task_id, str) and task_id.strip():
        return slugify(task_id)
    if isinstance(task_id, int) and not isinstance(task_id, bool):
        parts = [f"{task_id:03d}"] + [str(metadata[k]) for k in ("metaclass", "class", "platform")
                                      if isinstance(metadata.get(k), str) and metadata[k].strip()]
        return slugify("-".join(parts))
    return slugify(folder_name)


def host_from_pattern(pattern: str) -> str | None:
    """The literal host a url_pattern starts with (`post\\.craigslist\\.org/k/` → post.craigslist.org)."""
    m = _PATTERN_HOST.match(pattern)
    if not m or pattern[m.end():][:1] not in ("", "/", ":", "\\"):
        return None
    return m.group(1).replace("\\.", ".")


def start_url_for(metadata: dict, url_pattern: str | None) -> tuple[str, str | None]:
    """(start_url, where it came from; None for about:blank)."""
    sites = metadata.get("sites_involved")
    for site in sites if isinstance(sites, list) else []:
        if isinstance(site, str):
            host = re.sub(r"^[a-z]+://", "", site.strip()).split("/")[0]
            if _DOMAIN.fullmatch(host):
                return f"https://{host}/", "metadata.sites_involved"
    platform = metadata.get("platform")
    if isinstance(platform, str) and _DOMAIN.fullmatch(platform.strip()):
        return f"https://{platform.strip()}/", "metadata.platform"
    host = host_from_pattern(url_pattern) if url_pattern and url_pattern != PLACEHOLDER else None
    if host:
        return f"https://{host}/", "the host of eval_schema.url_pattern"
    return "about:blank", None


@dataclass
class Conversion:
    """One converted task: the spec data, the files to copy and the warnings for the user."""

    id: str
    spec: dict[str, Any]
    copies: list[tuple[str, str]] = field(default_factory=list)  # (path in the task folder, path next to the spec)
    warnings: list[Problem] = field(default_factory=list)
    has_rule: bool = True
    answer: bool = False


@dataclass(frozen=True)
class SharedUser:
    """What every imported task gets from the repository's shared files: `user` (clawbench_user.user_from_profile),
    `profile` and `resume`, paths relative to OUT (the résumé only to tasks whose common_info names one)."""

    user: dict[str, Any]
    profile: str | None = None
    resume: str | None = None


def is_answer_task(schema: dict, judge_context: dict) -> bool:
    pattern = schema.get("url_pattern")
    return bool(judge_context.get("rubric")) and isinstance(pattern, str) and ANSWER_PATTERN in pattern


def submit_url(instruction: str | None) -> str | None:
    """The loopback submit page an answer-mode instruction names (`http://127.0.0.1:7878/submit`), if any."""
    m = _SUBMIT_URL.search(instruction or "")
    return m.group(0).rstrip(".,;:") if m else None


def convert_task(task: Any, *, file: str, source: str, folder_name: str, lines: LineMap | None = None,
                 file_exists: Callable[[str], bool] = lambda _p: False, suite: str | None = None,
                 shared: SharedUser | None = None) -> Conversion:
    """Convert parsed task.json data. `file` names the input in messages, `source` is stored in the spec,
    `file_exists(rel)` says whether an extra_info path exists in the task folder, `suite` is the ClawBench suite
    the task comes from (for the id), `shared` the user and résumé. Raises SpecError."""
    c = FieldChecker(file, lines or LineMap())
    warnings: list[Problem] = []

    def warn(path: tuple, message: str) -> None:
        warnings.append(Problem(file, c.lines.line(path), dotted(path), f"warning: {message}"))

    doc = c.mapping(task, (), required=("instruction", "eval_schema", "time_limit"))
    if doc is None:
        raise SpecError(c.problems)
    for key in doc:
        if isinstance(key, str) and key not in TASK_KEYS:
            warn((key,), "not a ClawBench task.json key; kept under clawbench.other")
    instruction = c.string(doc["instruction"], ("instruction",)) if "instruction" in doc else None
    metadata = c.mapping(doc.get("metadata", {}), ("metadata",)) or {}
    schema = c.mapping(doc["eval_schema"], ("eval_schema",), known=EVAL_KEYS, required=("url_pattern",)) \
        if "eval_schema" in doc else None
    minutes = c.number(doc["time_limit"], ("time_limit",), integer=False) if "time_limit" in doc else None
    extra = doc.get("extra_info", [])
    if not isinstance(extra, list):
        c.bad(("extra_info",), f"must be a list of {{path, description}}, got {kind(extra)}")
        extra = []
    judge_context = c.string_map(doc["judge_context"], ("judge_context",)) if "judge_context" in doc else {}
    rule, url_pattern = _rule(c, schema or {}, warn)
    ident = task_id_for(metadata, folder_name, suite)
    copies, files = _files(c, extra, ident, file_exists, warn)
    if c.problems:
        raise SpecError(c.problems)

    answer_mode = is_answer_task(schema or {}, judge_context)
    notes = []
    metaclass = metadata.get("metaclass")
    category = category_for(metaclass, metadata.get("class"))
    if category is None:
        category = "daily"
        what = f"metaclass {metaclass!r} has no category group" if metaclass else "no metadata.metaclass"
        warn(("metadata", "metaclass"), f"{what}; category is 'daily'")
    elif not in_table(metaclass, metadata.get("class")):
        warn(("metadata", "metaclass"), f"metaclass {metaclass!r} is not in the category table; category "
                                        f"{category!r} guessed from its name")
    start_url, origin = start_url_for(metadata, url_pattern)
    if origin:
        notes.append(f"start_url derived from {origin}")
    elif answer_mode:
        notes.append("answer mode: the agent starts on about:blank and submits its answer on the page clawrec serves")
    else:
        notes.append("start_url is about:blank: no site in metadata or url_pattern")
        warn(("metadata",), "no site in metadata.sites_involved, metadata.platform or url_pattern; "
                            "start_url is about:blank")
    if rule is None:
        notes.append("eval_schema.url_pattern is the placeholder: nothing is intercepted")
    else:
        notes.append("url_regex is eval_schema.url_pattern wrapped for re.fullmatch (ClawBench uses re.search)")
    notes += [f"{w.field} not copied: {w.message.removeprefix('warning: ')}" for w in warnings
              if w.field.startswith("extra_info.")]

    spec: dict[str, Any] = {"version": SPEC_VERSION, "id": ident, "category": category, "instruction": instruction,
                            "start_url": start_url}
    common = metadata.get("common_info") if isinstance(metadata.get("common_info"), dict) else {}
    if shared is not None:
        files = [f for f in (shared.profile, shared.resume if "user_resume" in common else None) if f] + files
    if files:
        spec["files"] = files
    seconds = minutes * 60
    spec["limits"] = {"time_s": int(seconds) if float(seconds).is_integer() else seconds}
    if rule is not None:
        spec["intercept"] = [rule]
    if answer_mode:
        spec["answer"] = {"rubric": judge_context["rubric"]}
        if judge_context.get("reference_solution"):
            spec["answer"]["reference"] = judge_context["reference_solution"]
        if url := submit_url(instruction):
            spec["answer"]["url"] = url
    elif judge_context:
        spec["judge_context"] = dict(judge_context)
    if shared is not None:
        spec["user"] = shared.user
    kept = {"source": source, "metadata": metadata, "eval_schema": schema, "time_limit": minutes}
    if extra:
        kept["extra_info"] = extra
    if answer_mode:
        kept["judge_context"] = dict(judge_context)
    other = {k: v for k, v in doc.items() if k not in TASK_KEYS}
    if other:
        kept["other"] = other
    kept["notes"] = notes
    spec["clawbench"] = kept
    return Conversion(id=ident, spec=spec, copies=copies, warnings=warnings, has_rule=rule is not None,
                      answer=answer_mode)


def _rule(c: FieldChecker, schema: dict, warn: Callable) -> tuple[dict | None, str | None]:
    path = ("eval_schema",)
    pattern = c.string(schema["url_pattern"], path + ("url_pattern",)) if "url_pattern" in schema else None
    if pattern == PLACEHOLDER:
        return None, pattern
    rule: dict[str, Any] = {}
    if pattern is not None:
        try:
            re.compile(pattern)
            rule["url_regex"] = search_to_fullmatch(pattern)
        except (re.error, OverflowError, RecursionError, ValueError) as exc:
            c.bad(path + ("url_pattern",), f"bad regex: {exc}")
    if "method" in schema:
        methods = c.check_methods(schema["method"], path + ("method",), websocket=False)
        if methods:
            rule["method"] = methods[0] if len(methods) == 1 else list(methods)
    for key, target in (("body", "equals"), ("params", "query")):
        value = c.mapping(schema[key], path + (key,)) if key in schema else None
        if value:
            rule[target] = dict(value)
            for name in value:
                if key == "body" and isinstance(name, str) and "." in name:
                    warn(path + (key, name), f"key {name!r} contains '.', which clawrec reads as a nested path")
    return rule, pattern


def _files(c: FieldChecker, extra: list, ident: str, file_exists: Callable[[str], bool],
           warn: Callable) -> tuple[list[tuple[str, str]], list[str]]:
    copies, files = [], []
    for i, item in enumerate(extra):
        entry = c.mapping(item, ("extra_info", i), known=("path", "description"), required=("path",))
        if entry is None or "path" not in entry:
            continue
        rel = c.string(entry["path"], ("extra_info", i, "path"))
        if rel is None:
            continue
        parts = PurePosixPath(rel).parts
        if PurePosixPath(rel).is_absolute() or ".." in parts:
            warn(("extra_info", i, "path"), f"{rel} leaves the task folder; left out of files")
        elif not file_exists(rel):
            warn(("extra_info", i, "path"), f"file not found: {rel}; left out of files")
        else:
            dest = str(PurePosixPath("files", ident, *parts))
            copies.append((rel, dest))
            files.append(dest)
    return copies, files

