"""The spec's secret user fields kept out of the Inspect log: the model sees `{secret:PATH}`, the browser gets the
value.

Why placeholders: an Inspect log keeps every message in clear, and clawrec's rule is that no run file holds a
secret. The task message (dataset input, the run's first message) shows each secret field as `{secret:PATH}`;
clawrec's browser tools replace the placeholder with the value just before they act (agent.jsonl logs the
placeholder), so the value never passes through the model or its log.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from clawrec.agents.base import TaskInfo
from taskspec.fieldpath import MISSING, lookup

PLACEHOLDER = re.compile(r"\{secret:([\w.-]+)\}")
NOTE = ("Secret values are shown as {secret:NAME}: type the placeholder exactly as written; it is filled in "
        "when typed.")


def _set(value: Any, parts: list[str], new: Any) -> Any:
    if not parts or not isinstance(value, dict) or parts[0] not in value:
        return new if not parts else value
    return {**value, parts[0]: _set(value[parts[0]], parts[1:], new)}


def masked(task: TaskInfo, secrets: tuple[str, ...]) -> TaskInfo:
    """The task with each secret user field shown as its placeholder (and the note saying how to use it)."""
    user = dict(task.user)
    hidden = [p for p in secrets if lookup(user, p) is not MISSING]
    for path in hidden:
        user = _set(user, path.split("."), f"{{secret:{path}}}")
    if not hidden:
        return task
    return dataclasses.replace(task, user=user, instruction=f"{task.instruction.rstrip()}\n\n{NOTE}")


def filled(args: dict[str, Any], user: dict[str, Any], secrets: tuple[str, ...]) -> dict[str, Any]:
    """Tool arguments with the placeholders of secret fields replaced by their values."""

    def fill(m: re.Match[str]) -> str:
        value = lookup(user, m.group(1)) if m.group(1) in secrets else MISSING
        return m.group(0) if value is MISSING else str(value)

    return {k: PLACEHOLDER.sub(fill, v) if isinstance(v, str) else v for k, v in args.items()}
