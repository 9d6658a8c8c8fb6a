"""A typed, read-only view of one run directory (DESIGN.md "The run directory"), for the judges.

Tolerant by design: a run that crashed may lack files or end in a cut line, so a corrupt JSONL line is recorded in
`problems` (file and line number) and skipped, never fatal; a record or manifest field of the wrong type (a
hand-edited file) falls back to its default, also noted in `problems`. Refused (`RunDirError`): a directory with
neither a manifest nor any layer file, and a layer that cannot be read (a folder in its place). Every record keeps
its 1-based line number so verdicts can point at evidence.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Generic, Iterator, TypeVar

from rundir import manifest as M, records as R
from rundir.errors import RunDirError
from rundir.layers import (  # noqa: F401  (re-exported: the record types' old home)
    Action, AgentMessage, HttpRecord, Interception, Record, Screenshot, field_types, mistyped)
from rundir.records import read_numbered

LAYER_FILES = (R.INTERCEPTIONS, R.HTTP, R.ACTIONS, R.AGENT, R.SCREENSHOTS_INDEX)
NUMBER = (int, float)
# Manifest fields the evaluator reads, with their types; a value of another type (a hand-edited manifest) is left
# out of `RunDir.manifest` and named in `problems`, so no judge or report trips over it.
MANIFEST_TYPES: dict[str, type | tuple[type, ...]] = {
    "id": str, "status": str, "stop_reason": str,
    "agent": (str, dict), "task": dict, "sites": dict, "flags": dict, "versions": dict, "layers": dict, "t0": NUMBER,
    "t0_iso": str, "duration": NUMBER, "video_start_t": NUMBER}
TASK_TYPES: dict[str, type] = {"id": str, "spec": str, "spec_sha256": str, "start_url": str}


T = TypeVar("T", bound=Record)


@dataclass
class Layer(Generic[T]):
    """One JSONL layer: parsed records, the numbers of corrupt lines, and how many lines the file has."""

    file: str
    present: bool
    records: list[T]
    bad_lines: list[int]
    n_lines: int

    def __iter__(self) -> Iterator[T]:
        return iter(self.records)

    def __len__(self) -> int:
        return len(self.records)

    def at_line(self, line: int) -> T | None:
        return next((r for r in self.records if r.line == line), None)


class RunDir:
    """A run directory opened for judging. Raises RunDirError if `path` is not a run at all."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.is_dir():
            raise RunDirError(f"{self.path}: not a run directory (no such directory)")
        self.problems: list[str] = []
        self.manifest: dict[str, Any] = {}
        mpath = self.path / R.MANIFEST
        has_layers = any((self.path / f).exists() for f in LAYER_FILES)
        if mpath.exists():
            try:
                data = json.loads(mpath.read_text(encoding="utf-8"))
                if not isinstance(data, dict):
                    raise ValueError("not a JSON object")
                self.manifest = self._checked(M.upgrade(data))
            except (ValueError, UnicodeDecodeError, OSError) as exc:
                if not has_layers:
                    raise RunDirError(f"{mpath}: not a run directory (manifest unreadable: {exc})") from None
                self.problems.append(f"{R.MANIFEST}: unreadable ({exc}); layers read without it")
        elif has_layers:
            self.problems.append(f"{R.MANIFEST}: missing (crashed run?); layers read without it")
        else:
            raise RunDirError(f"{self.path}: not a run directory (no {R.MANIFEST} and no layer file)")

    def __repr__(self) -> str:
        return f"RunDir({str(self.path)!r})"

    def _checked(self, data: dict[str, Any]) -> dict[str, Any]:
        """The manifest without the fields whose type is wrong (each named in `problems`)."""
        def wrong(d: dict[str, Any], table: dict[str, Any]) -> list[str]:
            return [k for k, t in table.items() if d.get(k) is not None and not isinstance(d[k], t)]

        bad = wrong(data, MANIFEST_TYPES)
        data = {k: v for k, v in data.items() if k not in bad}
        if isinstance(data.get("task"), dict) and (task_bad := wrong(data["task"], TASK_TYPES)):
            data["task"] = {k: v for k, v in data["task"].items() if k not in task_bad}
            bad += [f"task.{k}" for k in task_bad]
        if bad:
            self.problems.append(f"{R.MANIFEST}: {', '.join(bad)}: wrong type (ignored)")
        return data

    # --- manifest -----------------------------------------------------------------------------------------------
    def _task(self) -> dict[str, Any]:
        task = self.manifest.get("task")
        return task if isinstance(task, dict) else {}

    @property
    def run_id(self) -> str:
        return str(self.manifest.get("id") or self.path.name)

    @property
    def task_id(self) -> str | None:
        return self._task().get("id")

    @property
    def spec_sha256(self) -> str | None:
        return self._task().get("spec_sha256")

    @property
    def spec_path(self) -> Path | None:
        raw = self._task().get("spec")  # rundir.manifest: the one key (older names upgraded on read)
        if not raw:
            return None
        p = Path(raw)
        if p.is_absolute():
            return p
        # relative to the run directory; a path written relative to where clawrec ran is found from there too
        return next((c.resolve() for c in (self.path / p, p) if c.is_file()), (self.path / p).resolve())

    @property
    def status(self) -> str | None:
        return self.manifest.get("status")

    @property
    def stop_reason(self) -> str | None:
        return self.manifest.get("stop_reason")

    @property
    def agent_name(self) -> str | None:
        agent = self.manifest.get("agent")
        return agent.get("name") if isinstance(agent, dict) else agent

    # --- layers -------------------------------------------------------------------------------------------------
    def _layer(self, file: str, cls: type[T]) -> Layer[T]:
        p = self.path / file
        if not p.exists():
            return Layer(file, False, [], [], 0)
        try:
            rows, bad, n = read_numbered(p)
        except OSError as exc:  # a directory or an unreadable file where the layer should be
            raise RunDirError(f"{p}: cannot read this layer ({exc.strerror or exc})") from None
        for b in bad:
            self.problems.append(f"{file}: line {b} is corrupt (skipped)")
        for line, raw in rows:
            if wrong := mistyped(cls, raw):
                self.problems.append(f"{file}: line {line}: {', '.join(wrong)}: wrong type (ignored)")
        return Layer(file, True, [cls.parse(line, raw) for line, raw in rows], bad, n)

    @cached_property
    def interceptions(self) -> Layer[Interception]:
        return self._layer(R.INTERCEPTIONS, Interception)

    @cached_property
    def http(self) -> Layer[HttpRecord]:
        return self._layer(R.HTTP, HttpRecord)

    @cached_property
    def actions(self) -> Layer[Action]:
        return self._layer(R.ACTIONS, Action)

    @cached_property
    def agent(self) -> Layer[AgentMessage]:
        return self._layer(R.AGENT, AgentMessage)

    @cached_property
    def screenshots(self) -> Layer[Screenshot]:
        return self._layer(R.SCREENSHOTS_INDEX, Screenshot)

    def layer(self, file: str) -> Layer[Any] | None:
        return {R.INTERCEPTIONS: self.interceptions, R.HTTP: self.http, R.ACTIONS: self.actions,
                R.AGENT: self.agent, R.SCREENSHOTS_INDEX: self.screenshots}.get(file)

    def load_all(self) -> "RunDir":
        """Read every layer now, so that `problems` lists every corrupt line."""
        for f in LAYER_FILES:
            self.layer(f)
        return self

    def screenshot_file(self, shot: Screenshot) -> Path | None:
        """The image of a screenshot record, if it is on disk inside this run directory."""
        rel = shot.path
        if not rel and shot.seq is not None:
            rel = f"{R.SCREENSHOTS_DIR}/{int(shot.seq):06d}.jpg"
        if not rel:
            return None
        root = self.path.resolve()
        # `path` may be relative to the run directory or to screenshots/; never outside the run
        for p in ((root / rel).resolve(), (root / R.SCREENSHOTS_DIR / rel).resolve()):
            if p.is_relative_to(root) and p.is_file():
                return p
        return None

    # --- evidence -------------------------------------------------------------------------------------------------
    def check_evidence(self, file: str, line: int | None = None, seq: int | None = None) -> str | None:
        """None if the pointer names something that exists in this run, else why not (shown to the model)."""
        file = file.strip().lstrip("./")
        if file == R.MANIFEST:
            return None if self.manifest else f"{R.MANIFEST} is missing or unreadable"
        if file.startswith(R.SCREENSHOTS_DIR + "/") and file.endswith((".jpg", ".jpeg", ".png")):
            return None if (self.path / file).is_file() else f"{file} does not exist"
        layer = self.layer(file)
        if layer is None:
            return f"{file} is not a layer file (use one of {', '.join(LAYER_FILES + (R.MANIFEST,))})"
        if not layer.present:
            return f"{file} does not exist in this run"
        if line is None and seq is None:
            return None
        if line is not None and layer.at_line(int(line)) is None:
            return f"{file} has no record at line {line} (it has {layer.n_lines} lines)"
        if seq is not None and not any(getattr(r, "seq", None) == int(seq) for r in layer.records):
            return f"{file} has no record with seq {seq}"
        return None
