"""The progress judge: partial credit from a site's own subgoal events (the web factory's dense reward;
SDRBench's state-delta view of the same idea). Offline, from RUN/subgoals.jsonl, which `clawrec factory eval`
copies from the generated site's log: a first line `{"subgoals": [names]}`, then `{"t", "subgoal"}` per event on
the run's clock. Progress = distinct subgoals reached before the terminal request was caught (all of the run when
nothing was) / total; PASS only at 1.0. No file or no subgoal list: inconclusive (JudgeError), never FAIL."""

from __future__ import annotations

import json
from typing import Any

from evaluator.errors import JudgeError
from evaluator.verdict import Condition, Evidence, Verdict
from rundir import records as R
from rundir.reader import RunDir


def read_subgoals(run: RunDir) -> tuple[list[str], list[tuple[int, dict[str, Any]]]]:
    """(the site's subgoal names, [(line, event)]); JudgeError (inconclusive) when there is nothing to read."""
    path = run.path / R.SUBGOALS
    if not path.is_file():
        raise JudgeError(f"{path}: inconclusive: not found; the progress judge needs a run of a generated site "
                         "(`clawrec factory eval` writes it)")
    names: list[str] | None = None
    events: list[tuple[int, dict[str, Any]]] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            rec = json.loads(line)
        except ValueError:
            continue  # a torn line: the others still count
        if isinstance(rec, dict) and isinstance(rec.get("subgoals"), list) and names is None:
            names = [str(x) for x in rec["subgoals"]]
        elif isinstance(rec, dict) and isinstance(rec.get("subgoal"), str) and isinstance(rec.get("t"), (int, float)):
            events.append((n, rec))
    if not names:
        raise JudgeError(f"{path}: inconclusive: no subgoal list (first line {{\"subgoals\": [...]}})")
    return names, events


def catch_time(run: RunDir) -> float | None:
    times = [rec.t for rec in run.interceptions if rec.t is not None]
    return min(times) if times else None


def judge_progress(run: RunDir) -> Verdict:
    names, events = read_subgoals(run)
    until = catch_time(run)
    first: dict[str, int] = {}
    for line, ev in events:
        if ev["subgoal"] in names and (until is None or ev["t"] <= until):
            first.setdefault(ev["subgoal"], line)
    conditions = [Condition(condition=f"subgoal {name} reached", met=name in first,
                            evidence=[Evidence(run="agent", file=R.SUBGOALS, line=first.get(name, 1))])
                  for name in names]
    progress = round(len(first) / len(names), 4)
    when = "before the terminal request was caught" if until is not None else "(nothing was caught)"
    return Verdict(verdict="PASS" if len(first) == len(names) else "FAIL", judge="progress", conditions=conditions,
                   justification=f"{len(first)} of {len(names)} subgoals reached {when}: progress {progress}",
                   progress=progress, run=str(run.path))


def run_progress(path: Any) -> float | None:
    """The progress of one run directory, or None when it has no subgoal events (not a generated site's run, or
    unreadable): what the bench summary averages."""
    try:
        run = RunDir(path)
        if not (run.path / R.SUBGOALS).is_file():
            return None
        return judge_progress(run).progress
    except Exception:  # a run that cannot be read has no progress to report; the summary says n
        return None
