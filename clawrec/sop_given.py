"""`clawrec run/bench --sop SOP.md|auto`: the SOP handed to the agent, after the instruction.

Why in the instruction: every agent (OpenClaw's prompt, claude's first message, a command agent's CLAWREC_TASK, a
person's task page) reads the instruction, so all get the same text without a change to any adapter. The SOP's
`## Steps` section (evaluator/sop.py; the steps of the `--json` form; a file without that heading: all of it but its
`## Parameters` list) is instantiated with this task's values, each given once, in the step that uses it
(evaluator/sop_values.py: user details, files, quoted strings, `{sites.NAME}`; a secret keeps its placeholder);
`auto` writes it from the spec's reference run. RUN/task.json and the manifest's `sop` record where it came from and its sha256.
"""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path
from typing import Any, Mapping

from clawrec.agents.base import TaskInfo
from clawrec.errors import UsageError
from evaluator.sop_values import GIVEN_INTRO



@dataclasses.dataclass(frozen=True)
class GivenSop:
    source: str          # the file, or `auto: <reference run>`
    template: str        # the steps as written (placeholders)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.template.encode()).hexdigest()

    def record(self) -> dict[str, Any]:
        return {"source": self.source, "sha256": self.sha256}


def load_sop(value: str | None, spec: Any) -> GivenSop | None:
    """`--sop` resolved before anything starts: a readable file, or `auto` with a reference run that has steps."""
    if not value:
        return None
    from evaluator.sop import steps_text, write_sop

    if value == "auto":
        ref = getattr(spec, "reference", None)
        if ref is None or not Path(ref).is_dir():
            raise UsageError(f"{{opt}} auto: {spec.path}: " + ("the spec names no reference run" if ref is None else
                                                               f"reference {ref} is not a directory"), option="sop")
        from rundir.reader import RunDir

        try:
            sop = write_sop(RunDir(ref))
        except Exception as exc:  # a reference that is not a readable run
            raise UsageError(f"{{opt}} auto: reference {ref}: {exc}", option="sop") from None
        if not sop.steps:
            raise UsageError(f"{{opt}} auto: reference {ref} has no browser step to write an SOP from", option="sop")
        return GivenSop(f"auto: {ref}", steps_text(sop.markdown()))
    path = Path(value)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{{opt}} {value}: cannot read ({getattr(exc, 'strerror', None) or exc})",
                         option="sop") from None
    if not text.strip():
        raise UsageError(f"{{opt}} {value}: the file is empty", option="sop")
    return GivenSop(str(path), steps_text(text))


def with_sop(task: TaskInfo, sop: GivenSop | None, sites: Mapping[str, str] | None,
             secrets: tuple[str, ...] = ()) -> TaskInfo:
    """The task with the instantiated SOP after its instruction (unchanged without an SOP). The spec's secret user
    fields are never written into it (their placeholders stay)."""
    if sop is None:
        return task
    from evaluator.sop_values import MissingValue, instantiate
    from taskspec.secrets import redact_user

    values = {**task.to_json(), "user": redact_user(dict(task.user), tuple(secrets))}
    try:
        steps = instantiate(sop.template, values, sites)
    except MissingValue as exc:
        raise UsageError(f"{{opt}} {sop.source}: placeholder {{{exc.args[0]}}}: this task has no such value",
                         option="sop") from None
    return dataclasses.replace(task, instruction=f"{task.instruction.rstrip()}\n\n{GIVEN_INTRO}\n{steps}\n",
                               sop=sop.record())
