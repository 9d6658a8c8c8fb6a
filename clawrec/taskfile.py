"""Load a task spec for a run: validate it, fill `{sites.NAME}` placeholders, and derive what the agent may know.

Why here and not in the spec loader: placeholders are a property of the local demo sites (random ports), resolved
only when a run knows where the sites are served; the spec file itself stays portable.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any, Mapping

from clawrec.agents.base import TaskInfo
from clawrec.errors import UsageError
from taskspec import placeholders
from taskspec.model import Rule, Spec

SITES_ENV = "CLAWREC_SITES"  # the JSON line `clawrec sites serve` prints: {"travel": "http://127.0.0.1:PORT/", …}


def load_task(path: str, allow_outside_files: bool = False) -> Spec:
    """The validated spec with its `{env: NAME}` values read from the environment; a bad or unreadable file, or a
    variable that is not set, is one UsageError line (the first problem, and how many more). `allow_outside_files`:
    its `files` may lie outside the spec's folder (`--allow-outside-files`)."""
    from taskspec.load import SpecError, load_spec
    from taskspec.secrets import resolve_env

    try:
        return resolve_env(load_spec(path, allow_outside_files=allow_outside_files), os.environ)
    except SpecError as exc:
        problems = [str(p) for p in getattr(exc, "problems", [])] or [str(exc)]
        more = f" (+{len(problems) - 1} more; see: clawrec validate {path})" if len(problems) > 1 else ""
        raise UsageError(problems[0] + more) from None


def has_placeholders(spec: Spec) -> bool:
    return bool(placeholders.PLACEHOLDER.search(json.dumps(spec.raw, default=str)))


def sites_from_env() -> dict[str, str] | None:
    """Base URLs of already running sites from $CLAWREC_SITES (None when unset)."""
    raw = os.environ.get(SITES_ENV)
    if not raw:
        return None
    try:
        urls = json.loads(raw)
    except ValueError:
        raise UsageError(f"{SITES_ENV} is not JSON (expected the line `clawrec sites serve` prints)") from None
    if isinstance(urls, dict) and isinstance(urls.get("urls"), dict):
        urls = urls["urls"]
    if not isinstance(urls, dict) or not all(isinstance(v, str) for v in urls.values()):
        raise UsageError(f"{SITES_ENV} must map site names to base URLs, e.g. {{\"travel\": \"http://127.0.0.1:PORT/\"}}")
    return urls


def expand_sites(spec: Spec, urls: Mapping[str, str]) -> Spec:
    """The spec with `{sites.NAME}` filled in every string (start_url, instruction, rules, writes, user, expect, raw)."""
    def fill(value: Any, regex: bool = False) -> Any:  # a URL put into a regex must match literally
        return placeholders.fill(value, urls, regex=regex)

    try:
        def rule(r: Rule) -> Rule:
            return dataclasses.replace(r, url=fill(r.url), url_regex=fill(r.url_regex, regex=True),
                                       equals=fill(r.equals), query=fill(r.query))

        writes = tuple(dataclasses.replace(w, rule=rule(w.rule), expect=fill(w.expect)) for w in spec.writes)
        return dataclasses.replace(spec, start_url=fill(spec.start_url), instruction=fill(spec.instruction),
                                   user=fill(spec.user), expect=fill(spec.expect),
                                   intercept=tuple(rule(r) for r in spec.intercept), writes=writes,
                                   verify=fill(spec.verify), raw=fill(spec.raw))
    except KeyError as exc:
        raise UsageError(f"{spec.path}: {exc.args[0] if exc.args else exc}") from None


def redacted_task(task: TaskInfo, spec: Spec) -> dict[str, Any]:
    """RUN/task.json: the task as the agent got it, with the spec's secret user fields replaced."""
    from taskspec.secrets import redact_user

    data = task.to_json()
    data["user"] = redact_user(data["user"], spec.secrets)
    return data


def agent_task_path() -> Path:
    """Where the agent's task file (CLAWREC_TASK, secrets in clear) goes: a private temp file OUTSIDE the run
    directory, created empty with mode 0600; the run deletes it when it ends."""
    fd, name = tempfile.mkstemp(prefix="clawrec-task-", suffix=".json")
    os.close(fd)
    return Path(name)


def task_info(spec: Spec) -> TaskInfo:
    """What the agent may know of the task (never the intercept rules)."""
    return TaskInfo(id=spec.id, instruction=spec.instruction, start_url=spec.start_url, user=dict(spec.user),
                    files=[str(p) for p in spec.files],
                    limits={"time_s": spec.limits.time_s, "steps": spec.limits.steps})
