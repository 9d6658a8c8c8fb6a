"""The bench plan: which specs × which agents × how many trials, pinned in DIR/bench.json.

Why pinned: a bench runs for hours and is resumed; a spec edited in between must not be silently mixed with
results of its old version. bench.json records each spec's sha256; a resume that finds a different plan is refused
(one line, exit 2) unless `--replan` is given.
"""

from __future__ import annotations

import fnmatch
import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from clawrec.errors import UsageError
from recorder.manifest import sha256_file

PLAN_FILE = "bench.json"
PLAN_VERSION = 1
CATEGORIES = ("daily", "finance", "work", "dev", "academic", "travel", "social", "pets")


@dataclass(frozen=True)
class SpecEntry:
    id: str
    path: str          # absolute
    sha256: str
    category: str
    time_s: float      # the spec's limits.time_s (the deadline's base when --time-limit is not given)


@dataclass(frozen=True)
class AgentEntry:
    name: str
    model: str | None = None
    sop: str | None = None     # `clawrec run --sop`: "auto" or an SOP file (absolute); None: no SOP

    @property
    def label(self) -> str:
        """One row of the table: `agent` or `agent:model` (slashes in the model kept: anthropic/claude-x), `+sop`
        when the agent is given the reference's SOP (`+sop:NAME` for an SOP file)."""
        base = f"{self.name}:{self.model}" if self.model else self.name
        if self.sop is None:
            return base
        return base + ("+sop" if self.sop == "auto" else f"+sop:{Path(self.sop).stem}")

    @property
    def folder(self) -> str:
        return "".join(c if c.isalnum() or c in "-_." else "_" for c in self.label)


@dataclass(frozen=True)
class Slot:
    """One (task, agent, trial): one run directory, re-run only when its last attempt was an infrastructure failure."""

    spec: SpecEntry
    agent: AgentEntry
    trial: int

    @property
    def key(self) -> str:
        return f"{self.spec.id}/{self.agent.folder}/trial-{self.trial}"

    def run_dir(self, root: Path) -> Path:
        return root / "runs" / self.spec.id / self.agent.folder / f"trial-{self.trial}"


@dataclass
class Plan:
    specs: list[SpecEntry]
    agents: list[AgentEntry]
    trials: int
    judge: str = "payload"
    run_flags: dict[str, Any] = field(default_factory=dict)

    def slots(self) -> list[Slot]:
        """Trial-major order: every task gets its first trial before any gets its second (partial benches are
        balanced)."""
        return [Slot(s, a, t) for t in range(1, self.trials + 1) for s in self.specs for a in self.agents]

    def to_json(self) -> dict[str, Any]:
        return {"version": PLAN_VERSION, "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "specs": [asdict(s) for s in self.specs], "agents": [asdict(a) for a in self.agents],
                "trials": self.trials, "judge": self.judge, "run_flags": self.run_flags}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Plan":
        return cls(specs=[SpecEntry(**s) for s in data["specs"]], agents=[AgentEntry(**a) for a in data["agents"]],
                   trials=int(data["trials"]), judge=str(data.get("judge", "payload")),
                   run_flags=dict(data.get("run_flags") or {}))


def discover_specs(paths: list[str], categories: tuple[str, ...] = (), ids: tuple[str, ...] = (),
                   allow_outside_files: bool = False) -> list[SpecEntry]:
    """SPECS (files, or folders searched recursively) loaded and checked, filtered by --category and --ids globs."""
    from taskspec.load import SpecError, load_specs

    for p in paths:
        if not Path(p).exists():
            raise UsageError(f"{p}: no such file or folder")
    try:
        specs = load_specs([Path(p) for p in paths], allow_outside_files=allow_outside_files)
    except SpecError as exc:
        problems = [str(p) for p in getattr(exc, "problems", [])] or [str(exc)]
        more = f" (+{len(problems) - 1} more; see: clawrec validate)" if len(problems) > 1 else ""
        raise UsageError(problems[0] + more) from None
    bad = [c for c in categories if c not in CATEGORIES]
    if bad:
        raise UsageError(f"--category {bad[0]}: not one of {'|'.join(CATEGORIES)}")
    chosen = [s for s in specs if (not categories or s.category in categories)
              and (not ids or any(fnmatch.fnmatchcase(s.id, g) for g in ids))]
    if not chosen:
        raise UsageError(f"no spec left in {' '.join(paths)} after --category/--ids filters")
    return [SpecEntry(id=s.id, path=str(Path(s.path).resolve()), sha256=s.sha256, category=s.category,
                      time_s=float(s.limits.time_s)) for s in sorted(chosen, key=lambda s: s.id)]


def agent_entries(agents: tuple[str, ...], models: tuple[str, ...], sops: tuple[str, ...] = ()) -> list[AgentEntry]:
    """`--agent A [--model M]…`: one model per agent in order; a single model applies to every agent; more models
    than agents with one agent compares that agent's models side by side. `--sop S…` crosses every agent with each
    SOP (`none` = without one), one row each."""
    if not agents:
        raise UsageError("--agent is required (one or more)")
    if not models:
        out = [AgentEntry(a) for a in agents]
    elif len(agents) == 1:
        out = [AgentEntry(agents[0], m) for m in models]
    elif len(models) == 1:
        out = [AgentEntry(a, models[0]) for a in agents]
    elif len(models) == len(agents):
        out = [AgentEntry(a, m) for a, m in zip(agents, models)]
    else:
        raise UsageError(f"{len(agents)} --agent and {len(models)} --model: give one --model per --agent, "
                         "a single --model for all, or several models for one agent")
    if sops:
        out = [AgentEntry(a.name, a.model, _sop(s)) for a in out for s in sops]
    if len({a.label for a in out}) != len(out):
        raise UsageError("the same --agent/--model/--sop combination is given twice")
    return out


def _sop(value: str) -> str | None:
    if value == "none":
        return None
    if value == "auto":
        return value
    if not Path(value).is_file():
        raise UsageError(f"--sop {value}: no such file (give an SOP file, auto or none)")
    return str(Path(value).resolve())


def read_plan(root: Path) -> Plan | None:
    path = root / PLAN_FILE
    if not path.exists():
        return None
    try:
        return Plan.from_json(json.loads(path.read_text()))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"{path}: not a readable bench plan ({type(exc).__name__}: {exc})") from None


def write_plan(root: Path, plan: Plan) -> None:
    """Write bench.json (atomically); a re-written plan keeps the date the bench was first planned."""
    root.mkdir(parents=True, exist_ok=True)
    data = plan.to_json()
    try:
        data["created"] = json.loads((root / PLAN_FILE).read_text()).get("created") or data["created"]
    except (OSError, ValueError, AttributeError):
        pass
    tmp = root / f".{PLAN_FILE}.tmp"
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    os.replace(tmp, root / PLAN_FILE)


def plan_changes(old: Plan, new: Plan) -> list[str]:
    """What differs between the pinned plan and the requested one, one phrase each (empty: same plan)."""
    out = []
    old_specs = {s.id: s for s in old.specs}
    new_specs = {s.id: s for s in new.specs}
    for sid, s in new_specs.items():
        if sid in old_specs and old_specs[sid].sha256 != s.sha256:
            out.append(f"spec {s.path} changed since the bench was planned (sha256 {old_specs[sid].sha256[:12]} → "
                       f"{s.sha256[:12]})")
    if set(new_specs) != set(old_specs):
        added, gone = sorted(set(new_specs) - set(old_specs)), sorted(set(old_specs) - set(new_specs))
        out.append("tasks differ" + (f" (new: {', '.join(added)})" if added else "")
                   + (f" (not asked any more: {', '.join(gone)})" if gone else ""))
    if [a.label for a in old.agents] != [a.label for a in new.agents]:
        out.append(f"agents differ ({', '.join(a.label for a in old.agents)} → "
                   f"{', '.join(a.label for a in new.agents)})")
    if old.trials != new.trials:
        out.append(f"trials differ ({old.trials} → {new.trials})")
    if old.run_flags != new.run_flags:
        keys = sorted(k for k in set(old.run_flags) | set(new.run_flags)
                      if old.run_flags.get(k) != new.run_flags.get(k))
        out.append(f"run flags differ ({', '.join('--' + k.replace('_', '-') for k in keys)})")
    return out


def recheck_specs(plan: Plan) -> list[str]:
    """A resume from bench.json alone: each pinned spec must still be there, unchanged."""
    out = []
    for s in plan.specs:
        p = Path(s.path)
        if not p.is_file():
            out.append(f"spec {s.path} (pinned in {PLAN_FILE}) is gone")
        elif sha256_file(p) != s.sha256:
            out.append(f"spec {s.path} changed since the bench was planned (sha256 {s.sha256[:12]} → "
                       f"{sha256_file(p)[:12]})")
    return out
