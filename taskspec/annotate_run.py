"""What `clawrec annotate` and `clawrec check-spec` read from a recorded run directory (taskspec/annotate.py).

Why strict: a spec is written from these records, so a corrupt JSONL line is an error naming the file and line
(AnnotateError, one line for the CLI), never a silently shorter run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rundir import records as R


class AnnotateError(ValueError):
    """Bad input for annotation (not a run, corrupt line, nothing to pick); the CLI prints it as one line."""


@dataclass
class Run:
    """What annotation reads from a run directory."""

    path: Path
    manifest: dict[str, Any]
    task: dict[str, Any]
    http: list[tuple[int, dict[str, Any]]]
    actions: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)
    catches: list[dict[str, Any]] = field(default_factory=list)  # interceptions.jsonl (decoded bodies)
    writes_seen: dict[str, int] = field(default_factory=dict)  # proposed write name -> its http.jsonl line (annotate)

    @property
    def sites(self) -> dict[str, str]:
        sites = self.manifest.get("sites")
        return {str(k): str(v) for k, v in sites.items()} if isinstance(sites, dict) else {}


def read_strict(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(line number, record) of a JSONL file; a corrupt line is an error naming file and line."""
    try:
        return R.read_numbered(path, strict=True)[0]
    except R.CorruptLine as exc:
        raise AnnotateError(str(exc)) from None


def read_run(path: str | Path) -> Run:
    p = Path(path)
    if not p.is_dir():
        raise AnnotateError(f"{p}: not a run directory (no such directory)")
    if not (p / R.HTTP).is_file():
        raise AnnotateError(f"{p}: not a run directory with an HTTP layer (no {R.HTTP})")
    manifest: dict[str, Any] = {}
    if (p / R.MANIFEST).is_file():
        try:
            manifest = json.loads((p / R.MANIFEST).read_text(encoding="utf-8"))
        except ValueError as exc:
            raise AnnotateError(f"{p / R.MANIFEST}: unreadable ({exc})") from None
        if not isinstance(manifest, dict):
            raise AnnotateError(f"{p / R.MANIFEST}: not a JSON object")
    task: dict[str, Any] = {}
    if (p / "task.json").is_file():
        try:
            task = json.loads((p / "task.json").read_text(encoding="utf-8"))
        except ValueError:
            task = {}
    actions = [rec for _n, rec in read_strict(p / R.ACTIONS)] if (p / R.ACTIONS).is_file() else []
    catches = [rec for _n, rec in read_strict(p / R.INTERCEPTIONS)] if (p / R.INTERCEPTIONS).is_file() else []
    return Run(p, manifest, task if isinstance(task, dict) else {}, read_strict(p / R.HTTP), actions,
               catches=catches)
