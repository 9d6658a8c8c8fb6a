"""The task's values in an SOP: found in a recorded run's steps and written as placeholders (`{user.first_name}`,
`{files.resume}`, `{quoted.1}`), then filled with another task's values when the SOP is handed to an agent.

Why placeholders: an SOP is the procedure, not one person's data; the same SOP serves every task of its kind
(Cybernaut's input parameters). Values come from what the run's agent was given (RUN/task.json): the `user:`
fields (dotted: `user.address.city`), the files (`files.<name without extension>`), and the strings the instruction
puts in double quotes (`quoted.1`, …). Site addresses are `{sites.NAME}` as everywhere else (taskspec.placeholders).
A secret user field (`[redacted]` in task.json) is never filled in: its placeholder stays, and the agent reads the
value from the user details it was given. The recorded run's values themselves are never written into an SOP:
`describe` says what a placeholder is, from the task (the parameter rule, docs/howto/sops.md).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import unquote_plus

from evaluator.normalize import same, text
from rundir.redact import REDACTED
from taskspec import placeholders as sites_placeholders

PLACEHOLDER = re.compile(r"\{((?:user|files|quoted)\.[A-Za-z0-9_.\-]+)\}")
QUOTED = re.compile(r"\"([^\"\n]{2,200})\"|“([^”\n]{2,200})”")
MIN_INSIDE = 4   # a task value shorter than this is replaced only when it is the whole value
GIVEN_INTRO = ("Standard operating procedure for this task, recorded from a person doing it (follow it step by step; "
               "the values are this task's):")   # how `run --sop` appends an SOP to the instruction


def _flat(info: Mapping[str, Any], prefix: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in info.items():
        if isinstance(value, Mapping):
            out.update(_flat(value, f"{prefix}{key}."))
        elif isinstance(value, (str, int, float)) and not isinstance(value, bool):
            out[f"{prefix}{key}"] = value
    return out


def task_values(task: Mapping[str, Any]) -> dict[str, Any]:
    """placeholder name → value, from a task as agents get it ({instruction, user, files}; RUN/task.json)."""
    values: dict[str, Any] = {}
    user = task.get("user")
    if isinstance(user, Mapping):
        values.update(_flat(user, "user."))
    files = task.get("files") or []
    items = files.items() if isinstance(files, Mapping) else ((Path(str(f)).stem, f) for f in files)
    for name, path in items:
        key = re.sub(r"[^A-Za-z0-9_\-]", "_", Path(str(name)).stem) or "file"
        values[f"files.{key}"] = str(path)
    for n, m in enumerate(QUOTED.finditer(own_instruction(task)), start=1):
        values[f"quoted.{n}"] = m.group(1) or m.group(2)
    return values


def own_instruction(task: Mapping[str, Any]) -> str:
    """The task's instruction without an SOP that `run --sop` appended to it."""
    return str(task.get("instruction") or "").split("\n\n" + GIVEN_INTRO, 1)[0]


def read_task(run_path: Path) -> dict[str, Any]:
    """RUN/task.json (the task as the agent got it); {} when the run has none."""
    try:
        data = json.loads((run_path / "task.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def placeholdered(value: Any, values: Mapping[str, Any]) -> tuple[Any, list[str]]:
    """`value` with the task's values written as placeholders, and the placeholder names used. A file input's value
    (`C:\\fakepath\\resume.pdf`) is matched by file name; the whole value first, then task values of MIN_INSIDE+
    characters inside it (longest first, on word boundaries)."""
    if value is None or isinstance(value, bool):
        return value, []
    s = str(value)
    live = {k: v for k, v in values.items() if str(v) != REDACTED and str(v).strip()}
    for key, v in live.items():
        if key.startswith("files.") and s and Path(s.replace("\\", "/")).name == Path(str(v)).name:
            return "{" + key + "}", [key]
    for key, v in live.items():
        if text(s) == text(v) or same(s, v)[0]:  # the task's value as typed, or spelled another way (a phone, a date)
            return "{" + key + "}", [key]
    used: list[str] = []
    for key, v in sorted(live.items(), key=lambda kv: -len(str(kv[1]))):
        needle = str(v).strip()
        if len(needle) < MIN_INSIDE or key.startswith("files."):
            continue
        pattern = re.compile(r"(?<!\w)" + re.escape(needle) + r"(?!\w)", re.I)
        if pattern.search(s):
            s = pattern.sub(lambda _m, k=key: "{" + k + "}", s)
            used.append(key)
    return s, used


def in_url(url: str, values: Mapping[str, Any]) -> tuple[str, list[str]]:
    """A URL with the task's values in it (a query `?email=alex%40…`, a path segment) written as placeholders,
    read decoded; the URL unchanged when it carries none."""
    decoded = unquote_plus(url)
    shown, used = placeholdered(decoded, values)
    return (str(shown), used) if used else (url, [])


def describe(key: str) -> str:
    """What a placeholder stands for, said from the task (never its value): an SOP names its parameters this way."""
    kind, _, rest = key.partition(".")
    words = rest.replace(".", " ").replace("_", " ").replace("-", " ").strip()
    if kind == "user":
        return f"the user's {words}, from the user details"
    if kind == "files":
        return f"the task's file {words!r}, from the files given with the task"
    if kind == "quoted":
        return f"the text the task's instruction puts in double quotes (number {rest})"
    if kind == "sites":
        return f"the address of the site {words!r}"
    return key


class MissingValue(KeyError):
    """An SOP names a placeholder the task has no value for."""


def instantiate(sop_text: str, task: Mapping[str, Any], sites: Mapping[str, str] | None = None) -> str:
    """The SOP with this task's values: `{user.X}`, `{files.X}`, `{quoted.N}` and `{sites.NAME}` filled; a secret
    user field keeps its placeholder (the agent has the value in its user details). Raises MissingValue naming the
    first placeholder the task cannot fill."""
    values = task_values(task)

    def fill(m: re.Match[str]) -> str:
        key = m.group(1)
        if key not in values:
            raise MissingValue(key)
        v = str(values[key])
        return m.group(0) if v == REDACTED else v

    out = PLACEHOLDER.sub(fill, sop_text)
    if sites:
        try:
            out = sites_placeholders.fill(out, sites)
        except KeyError as exc:
            raise MissingValue(str(exc.args[0]) if exc.args else "sites") from None
    return out
