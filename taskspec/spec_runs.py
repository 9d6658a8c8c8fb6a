"""A spec's rules checked offline against recorded runs (`clawrec check-spec`, and `annotate` before it writes).

Why: a rule is only good if it catches a reference run's terminal request exactly once and nothing of a benign
run. Every request a run recorded (http.jsonl, the bodies of caught requests in interceptions.jsonl, sent
WebSocket messages, WebSocket messages the guard dropped) is put through `taskspec.distinguish.caught`, i.e. the
same `taskspec.match` predicate the live interceptor uses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rundir import records as R
from taskspec.annotate import Run, candidates, read_run, sent
from taskspec.attempts import person_blocked_places, repeats
from taskspec.distinguish import Sent, caught
from taskspec.model import Rule, Spec
from taskspec.terminal import CAUGHT, action, terminal_order  # one meaning of the terminal request
from taskspec.write_runs import WriteCheck, check_writes, problem as write_problem


@dataclass
class Hit:
    where: str       # "http.jsonl:12" or "interceptions.jsonl:3"
    sent: Sent
    rule: Rule

    def describe(self) -> str:
        equals = f"; equals {', '.join(f'{k}={v}' for k, v in self.rule.equals.items())}" if self.rule.equals else ""
        nonempty = f"; nonempty {', '.join(self.rule.nonempty)}" if self.rule.nonempty else ""
        return f"{self.where} {self.sent.method} {self.sent.url} (rule {self.rule.index + 1}{equals}{nonempty})"


@dataclass
class RunCheck:
    path: Path
    role: str                      # reference | benign
    hits: list[Hit] = field(default_factory=list)
    terminal: str | None = None    # where the reference's terminal request is
    problem: str = ""              # empty: the run passes
    repeats: list[str] = field(default_factory=list)  # earlier person-blocked attempts of the same submission
    writes: list[WriteCheck] = field(default_factory=list)  # the spec's write rules on this run

    @property
    def ok(self) -> bool:
        return not self.problem


def requests(run: Run) -> list[tuple[str, Sent]]:
    """Every request of the run, with where it is recorded."""
    out = [(f"{R.HTTP}:{s.line}", s) for s in sent(run)]
    for n, rec in enumerate(run.catches, 1):  # a WebSocket message the guard dropped is in no other layer
        if str(rec.get("method")).upper() == "WEBSOCKET":
            out.append((f"{R.INTERCEPTIONS}:{n}", Sent(-n, "WS", str(rec.get("url") or ""),
                                                       str(rec.get("body_kind") or "json"), rec.get("body"))))
    return out


def terminal_request(run: Run) -> str | None:
    """Where the run's terminal request is, in taskspec.terminal's order (the one the judges use): the first one it
    caught; else the last one a person blocked in hold mode; else the last one blocked at the hold timeout; with
    nothing in interceptions.jsonl, annotate's top candidate."""
    index = {id(c): n for n, c in enumerate(run.catches, 1)}
    held_lines = {rec.get("id"): n for n, rec in run.http if rec.get("intercepted") and rec.get("id") is not None}
    caught_lines = [n for n, rec in run.http if rec.get("intercepted") in CAUGHT]
    for c in terminal_order(run.catches):
        if str(c.get("method")).upper() == "WEBSOCKET":  # a frame kept from its socket is only there
            return f"{R.INTERCEPTIONS}:{index[id(c)]}"
        line = held_lines.get(c.get("network_id")) if c.get("network_id") is not None else None
        if line is None and action(c) in CAUGHT and caught_lines:  # runs recorded before network ids were kept
            line = caught_lines[0]
        if line is not None:
            return f"{R.HTTP}:{line}"
    top = candidates(run)
    return f"{R.HTTP}:{top[0].line}" if top and top[0].source == R.HTTP else None


def check_run(spec: Spec, run: Run, role: str, seen: dict[str, int] | None = None) -> RunCheck:
    """One run against the spec's rules and write rules (the spec's `{sites.NAME}` already filled for this run);
    `seen`: {write name: http.jsonl line} of the writes annotate proposed from this run (taskspec/write_runs.py)."""
    result = _check_intercept(spec, run, role)
    if spec.writes:
        result.writes = check_writes(spec.writes, run, role, result.terminal, seen)
        result.problem = result.problem or write_problem(result.writes)
    return result


def _check_intercept(spec: Spec, run: Run, role: str) -> RunCheck:
    result = RunCheck(run.path, role)
    for where, s in requests(run):
        if not s.known:
            continue
        rule = next((r for r in spec.intercept if caught(r, s)), None)
        if rule is not None:
            result.hits.append(Hit(where, s, rule))
    n = len(result.hits)
    if role == "benign":
        if n:
            result.problem = f"{n} match(es) in a benign run (expected none)"
        return result
    result.terminal = terminal_request(run)
    if result.terminal is None:
        result.problem = "no terminal request found in the reference (nothing caught, blocked or submitted)"
        return result
    last = next((h for h in result.hits if h.where == result.terminal), None)
    if last is not None and n > 1:  # a person who pressed submit again: the same submission, blocked again
        result.repeats = repeats(last.sent, [(h.where, h.sent) for h in result.hits if h is not last],
                                 person_blocked_places(run.catches, run.http))
        n -= len(result.repeats)
    if n != 1:
        result.problem = f"{n} matches (expected exactly 1, at its terminal request {result.terminal})"
    elif last is None:
        result.problem = f"the match is not its terminal request {result.terminal}"
    return result


def role_of(run: Run) -> str:
    """A person's recording (`clawrec record`, agent human) is a reference; any other run is benign."""
    return "reference" if run.manifest.get("agent") == "human" else "benign"


def report(check: RunCheck) -> list[str]:
    head = f"{check.path} ({check.role}): {len(check.hits)} match(es)"
    again = (f" (the same submission repeated: the person blocked it {len(check.repeats) + 1} times; the last, "
             f"{check.terminal}, is the terminal request)") if check.repeats else ""
    lines = [head + (f" -- OK{again}" if check.ok else f" -- FAIL: {check.problem}")]
    lines += [f"    {h.describe()}" + (" [the same submission repeated]" if h.where in check.repeats else "")
              for h in check.hits]
    return lines + [w.describe() for w in check.writes]


def load_runs(paths: list[tuple[Path, str | None]]) -> list[tuple[Run, str]]:
    """(run, role) for each (path, role or None = from its manifest); raises taskspec.annotate.AnnotateError."""
    out = []
    for path, role in paths:
        run = read_run(path)
        out.append((run, role or role_of(run)))
    return out


def for_run(spec: Spec, run: Run, fill: Any) -> Spec:
    """The spec with the run's own site URLs (`fill(spec, sites)`, e.g. clawrec.taskfile.expand_sites)."""
    return fill(spec, run.sites) if run.sites else spec



def load_spec_text(text: str, path: Path) -> Spec:
    """A spec not written yet, checked as if it were the file `path` (relative paths resolve from there)."""
    from taskspec.check import check_spec_data
    from taskspec.yaml_source import SpecError, read_yaml

    raw = text.encode("utf-8")
    source = read_yaml(raw, str(path))
    problems, spec = check_spec_data(source.data, file=str(path), spec_path=path, lines=source.lines, raw=raw)
    if source.problems or problems or spec is None:
        raise SpecError(source.problems + problems)
    return spec
