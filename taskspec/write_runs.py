"""A spec's `writes:` rules checked offline against recorded runs (`clawrec check-spec`, and `annotate` before it
writes), as taskspec/spec_runs.py checks its intercept rules.

Why: a write rule is only good if, in the reference, it reads the write that carried the task's values (the last
matching request that reached the site before the terminal request: DESIGN.md's meaning, the judge's), that write
holds every field its `expect` names, and in a benign run it matches no request of another shape (one lacking an
`expect` field: in a real run it could come last and be read instead of the write; the same write made by a run that
stopped before submitting is fine). Matching is `taskspec.distinguish.caught`, the live interceptor's predicate.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from rundir import records as R
from taskspec.annotate_run import Run
from taskspec.candidates import sent
from taskspec.distinguish import Sent, caught, same_submission
from taskspec.fieldpath import MISSING, lookup
from taskspec.match import body_candidates
from taskspec.model import Write
from taskspec.payload import Body
from taskspec.propose_writes import earlier_writes, started


@dataclass
class WriteCheck:
    write: Write
    where: str | None = None                          # the write the judge reads ("http.jsonl:7"), if any
    sent: Sent | None = None
    matches: list[str] = field(default_factory=list)  # every request the rule matches (where)
    problem: str = ""

    def describe(self) -> str:
        w = self.write
        head = f"    {w.label}: "
        if self.where is None or self.sent is None:
            return head + (f"{len(self.matches)} match(es)" + (f" -- FAIL: {self.problem}" if self.problem else ""))
        more = f" (the last of {len(self.matches)} matches before it)" if len(self.matches) > 1 else ""
        equals = f" equals {', '.join(f'{k}={v}' for k, v in w.rule.equals.items())}" if w.rule.equals else ""
        return (head + f"reads {self.where} {self.sent.method} {self.sent.url}{more}{equals}; expect "
                + ", ".join(w.expect) + (f" -- FAIL: {self.problem}" if self.problem else ""))


def terminal_time(run: Run, terminal: str | None) -> float | None:
    """When the terminal request ("http.jsonl:N" or "interceptions.jsonl:N") started, on the run's clock."""
    if terminal is None:
        return None
    name, _, line = terminal.rpartition(":")
    if name == R.HTTP:
        rec = dict(run.http).get(int(line))
        return started(rec) if rec is not None else None
    rec = run.catches[int(line) - 1] if 0 < int(line) <= len(run.catches) else {}
    held = rec.get("held") if isinstance(rec.get("held"), dict) else {}
    t = held.get("held_t", rec.get("t"))
    return float(t) if isinstance(t, (int, float)) else None


def _missing(write: Write, s: Sent) -> list[str]:
    values = body_candidates(Body(s.kind, s.value), s.url)
    return [p for p in write.expect if all(lookup(v, p) is MISSING for v in values)]


def _same(read: Sent, line: int, earlier: list[tuple[float, Sent]]) -> bool:
    """The write read is the one proposed from `line`, or the same submission sent again (the same values)."""
    proposed = next((s for _t, s in earlier if s.line == line), None)
    return read.line == line or (proposed is not None and same_submission(read, proposed))


def check_writes(writes: tuple[Write, ...], run: Run, role: str, terminal: str | None,
                 seen: dict[str, int] | None = None) -> list[WriteCheck]:
    """Each write rule on one run. Reference: the write it reads before `terminal`, holding its expect fields (and,
    with `seen` {name: http.jsonl line}, the very request annotate proposed it from). Benign: no match of another
    shape."""
    out = []
    if role == "benign":
        requests = [s for s in sent(run) if s.known and s.method != "WS"]
        for w in writes:
            hits = [s for s in requests if caught(w.rule, s)]
            check = WriteCheck(w, matches=[f"{R.HTTP}:{s.line}" for s in hits])
            # A benign run may make the task's earlier writes (one that stopped before submitting): the same write,
            # holding every expect field, is no problem (write rules block nothing, and the judge reads them only
            # before a terminal request). A request of another shape is: in a real run it could be the last match
            # and shadow the write that carried the values.
            if other := [f"{R.HTTP}:{s.line}" for s in hits if _missing(w, s)]:
                check.problem = f"{len(other)} request(s) of another shape in a benign run (it would be read " \
                                f"instead of the write if it came last): " + ", ".join(other[:5])
            out.append(check)
        return out
    before = terminal_time(run, terminal)
    earlier = earlier_writes(run, before) if before is not None else []
    for w in writes:
        hits = [s for _t, s in earlier if caught(w.rule, s)]
        check = WriteCheck(w, matches=[f"{R.HTTP}:{s.line}" for s in hits])
        if before is None:
            check.problem = "no terminal request to read the writes before"
        elif not hits:
            check.problem = f"no matching write reached the site before the terminal request {terminal}"
        else:
            check.sent, check.where = hits[-1], f"{R.HTTP}:{hits[-1].line}"
            if missing := _missing(w, hits[-1]):
                check.problem = f"expect field(s) {', '.join(missing)} not in the write it reads"
            elif seen and w.name in seen and not _same(hits[-1], seen[w.name], earlier):
                check.problem = f"annotate proposed it from {R.HTTP}:{seen[w.name]}, but it reads {check.where}"
        out.append(check)
    return out


def problem(checks: list[WriteCheck]) -> str:
    """The run's problem from its write checks ("" when every write rule fits)."""
    bad = [c for c in checks if c.problem]
    return (f"{len(bad)} write rule(s) do not fit: " + "; ".join(f"{c.write.label}: {c.problem}" for c in bad[:3])
            if bad else "")
