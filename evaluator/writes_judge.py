"""The writes a submission is made of before its final request (spec `writes:`, issue 33): what the site holds.

Why: on a multi-step checkout the final "Place order" POST carries a CSRF token and nothing else; the quantity, the
address and the e-mail were sent by earlier POSTs the site keeps in its session. For each write rule, the site holds
what the LAST matching request that reached it (in http.jsonl: not intercepted, answered) sent BEFORE the run's
terminal interception, by the time it was sent (http.jsonl `started`; `t` is when it finished); a later request
never counts (the order was placed before it), an earlier one was overwritten. No such request: each of the write's `expect` fields is missing. Values are compared like the final
request's `expect` (evaluator/normalize.py; the spec's `exact` fields verbatim).

Every condition names its write, the request (http.jsonl line and id, method, URL) and the step it happened in (THE
step numbering: evaluator/trajectory.py), also as `source` in verdict.json; `writes_summary` is the verdict's
`writes` list (one entry per write rule, with its request and step) that the report, the LLM judge and diagnose read.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from evaluator.normalize import same
from evaluator.verdict import Condition, Evidence
from rundir import records as R
from rundir.reader import HttpRecord, Interception, RunDir
from taskspec import terminal
from taskspec.fieldpath import MISSING, lookup
from taskspec.match import body_candidates, matches, query_params
from taskspec.model import Spec, Write
from taskspec.payload import Body


@dataclass
class HeldWrite:
    """One write rule and the request whose values the site holds (None: it never reached the site)."""

    write: Write
    request: HttpRecord | None
    step: int | None

    def source(self) -> dict[str, Any]:
        """Where the values came from, as verdict.json says it."""
        out: dict[str, Any] = {"write": self.write.name, "rule": f"writes[{self.write.index}]", "step": self.step}
        h = self.request
        out["request"] = None if h is None else {"file": R.HTTP, "line": h.line, "id": h.id, "method": h.method,
                                                 "url": h.url, "t": h.t, "status": status_of(h)}
        return out


def status_of(h: HttpRecord) -> int | None:
    status = h.response.get("status") if isinstance(h.response, dict) else None
    return status if isinstance(status, int) else None


def sent_body(h: HttpRecord) -> Body:
    body = h.body if isinstance(h.body, dict) else {}
    return Body(str(body.get("kind") or "empty"), body.get("value"))


def reached_site(h: HttpRecord) -> bool:
    """A request the site answered: not caught, not failed before an answer (a 4xx/5xx answer still reached it)."""
    return h.type == "request" and not h.intercepted and bool(h.url) and status_of(h) is not None


def write_value(h: HttpRecord, path: str) -> Any:
    """A field of a recorded request, as the matcher reads it: the decoded body (any element of a batch), else the
    URL's query string."""
    body = sent_body(h)
    for value in body_candidates(body, h.url):
        if (found := lookup(value, path)) is not MISSING:
            return found
    return lookup(query_params(h.url), path) if body.kind != "empty" else MISSING


def sent_at(h: HttpRecord) -> float | None:
    """When the request was sent (http.jsonl `started`); `t` is when it finished, which for a write answered after
    the final request was caught is later than the catch although the site had it before."""
    return h.started if h.started is not None else h.t


def cutoff(run: RunDir) -> float | None:
    """The run clock time of the terminal interception (None: nothing caught, every write counts)."""
    catches = list(run.interceptions)
    first = terminal.terminal_order(catches)[0] if catches else None
    return first.t if first is not None else None


def held_writes(run: RunDir, spec: Spec, before: float | None) -> list[HeldWrite]:
    """For each write rule, the last matching request that reached the site before `before`, and its step."""
    from evaluator.payload_judge import sites_of
    from evaluator.trajectory import Trajectory

    sites = sites_of(run)
    rules = [(w, terminal.filled(w.rule, sites) if sites else w.rule) for w in spec.writes]
    last: dict[int, HttpRecord] = {}
    for h in sorted(run.http, key=lambda h: sent_at(h) if sent_at(h) is not None else float("inf")):
        if not reached_site(h) or (before is not None and sent_at(h) is not None and sent_at(h) >= before):
            continue
        for w, rule in rules:
            try:
                if not terminal.unfilled(rule) and matches(rule, h.method, h.url, sent_body(h)):
                    last[w.index] = h
            except (ValueError, re.error):  # a URL pattern that does not compile once filled: matches nothing
                continue
    tr = Trajectory(run) if last else None
    return [HeldWrite(w, last.get(w.index), tr.at(last[w.index].t).n if tr and w.index in last else None)
            for w in spec.writes]


def _show(v: Any) -> str:
    s = json.dumps(v, ensure_ascii=False, default=str) if v is not MISSING else "(missing)"
    return s if len(s) <= 80 else s[:77] + "..."


def where(held: HeldWrite) -> str:
    h = held.request
    if h is None:
        return f"{held.write.name}: never reached the site before the final request"
    step = f", step {held.step}" if held.step is not None else ""
    return f"{h.method} {h.url} ({R.HTTP} line {h.line}{step})"


Diff = tuple[HeldWrite, str, Any, Any]  # (write, field, got, wanted) of a wrong or missing value


def judge_writes(run: RunDir, spec: Spec) -> tuple[list[Condition], list[HeldWrite], list[Diff]]:
    """(conditions, the held writes, the wrong values (write, field, got, wanted)) for a spec's `writes:`."""
    exact = set(spec.exact)
    helds = held_writes(run, spec, cutoff(run))
    conditions: list[Condition] = []
    diffs: list[Diff] = []
    for held in helds:
        h, src = held.request, held.source()
        for path, want in held.write.expect.items():
            exactly = " exactly" if path in exact else ""
            name = f"Write {held.write.name}: field {path} equals {_show(want)}{exactly}"
            ev = [Evidence("agent", R.HTTP, line=h.line if h is not None else None, field=path)]
            got = write_value(h, path) if h is not None else MISSING
            if got is MISSING:
                why = (f"the write never reached the site before the final request (no {held.write.label} request "
                       f"in {R.HTTP}): field missing" if h is None else f"field missing from {where(held)}")
                diffs.append((held, path, MISSING, want))
                conditions.append(Condition(name, False, ev, why, source={**src, "field": path}))
                continue
            ok, how = same(got, want, exact=path in exact)
            if not ok:
                diffs.append((held, path, got, want))
            detail = (f"{_show(got)} ({how})" if ok else f"got {_show(got)}" + (f" ({how})" if exactly else "")) \
                + f" in {where(held)}"
            conditions.append(Condition(name, ok, ev, detail, source={**src, "field": path}))
    return conditions, helds, diffs


def writes_summary(helds: list[HeldWrite], conditions: list[Condition]) -> list[dict[str, Any]]:
    """verdict.json `writes`: per write rule, its request and step and each expected field's outcome."""
    out = []
    for held in helds:
        fields = [{"field": c.source.get("field"), "met": c.met, "detail": c.detail} for c in conditions
                  if c.source and c.source.get("write") == held.write.name]
        out.append({**held.source(), "fields": fields})
    return out


def final_source(run: RunDir, catch: Interception) -> dict[str, Any]:
    """Where the final request's fields came from: its interceptions.jsonl line and its step."""
    from evaluator.trajectory import Trajectory

    return {"write": None, "step": Trajectory(run).at(catch.t).n,
            "request": {"file": R.INTERCEPTIONS, "line": catch.line, "method": catch.method, "url": catch.url,
                        "t": catch.t}}


def divergence(run: RunDir, diffs: list[Diff]) -> dict[str, Any] | None:
    """The first wrong write value as the verdict's divergence: the action that typed it (its seq) when one did,
    the write's step (`run_step`) and the write's name."""
    if not diffs:
        return None
    held, path, got, want = min(diffs, key=lambda d: (d[0].request.t if d[0].request is not None
                                                      and d[0].request.t is not None else float("inf")))
    sent_t = held.request.t if held.request is not None else None
    typed = [a for a in run.actions if got is not MISSING and a.type in ("input", "change")
             and isinstance(a.value, (str, int)) and same(a.value, got)[0]
             and (sent_t is None or a.t is None or a.t <= sent_t)]
    return {"step": typed[-1].seq if typed else None, "run_step": held.step, "write": held.write.name,
            "agent": f"{held.write.name}: {path} = {_show(got)}", "reference": f"{path} = {_show(want)}"}


def writes_prompt(spec: Spec, agent: RunDir, reference: RunDir | None) -> str:
    """The LLM judge's evidence about a spec's writes: what each must hold, and per run the request whose values
    the site held (http.jsonl line, step, body: untrusted data, fenced) or that it never reached the site."""
    from evaluator.judge_tools import _compact, fence

    lines = ["The submission is more than the final request: the site keeps the values of these earlier writes "
             "(the final request may carry none of them). Judge them as part of the submission:"]
    lines += [f"- {w.label}: {'|'.join(w.rule.methods)} {w.rule.url or w.rule.url_regex} must hold "
              f"{json.dumps(w.expect, ensure_ascii=False)}" for w in spec.writes]
    for name, run in (("agent", agent), ("reference", reference)):
        if run is None:
            continue
        held = []
        for h in held_writes(run, spec, cutoff(run)):
            if h.request is None:
                held.append(f"{h.write.name}: never reached the site before the final request")
            else:
                held.append(f"{h.write.name}: {R.HTTP} line {h.request.line} (step {h.step}) {h.request.method} "
                            f"{h.request.url} body=" + _compact(sent_body(h.request).value, 600))
        lines.append(f"What the site held from the {name} run's writes (cite {R.HTTP} lines):\n"
                     + fence(name, R.HTTP, "\n".join(held)))
    return "\n".join(lines)
