"""Why a run failed, in one word from a fixed taxonomy, and the step that caused it.

The taxonomy (the `category` key of diagnosis.json; the bench summary counts these ids):
never_submitted, wrong_value, missing_field, wrong_endpoint, stuck_looping, off_task, verification_wall, limit,
agent_crash, infrastructure, wrong_earlier_value (the final request is right, a write before it is not: a spec's
`writes:`, evaluator/write_failure.py); `null` when the payload judge passes the run.

The cause is what a person would fix first: for a wrong field value, the step where the agent typed or chose that
value (found through the caught payload's value and the field's label); for a missing submission, where the agent
stopped or left the path. Also the "self-report gap": the agent's last word claims success, but no terminal request
was ever sent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from evaluator.normalize import same, text
from evaluator.payload_judge import catch_value
from evaluator.same_site import site_of
from taskspec.fieldpath import MISSING, leaf_paths, lookup
from taskspec.terminal import terminal_order
from rundir.reader import RunDir
from evaluator.steps import Step
from evaluator.trajectory import Trajectory
from evaluator.verdict import Verdict
from evaluator.walls import find as find_wall
from evaluator.write_failure import earlier_cause, is_write

CATEGORIES = {
    "never_submitted": "never submitted", "wrong_value": "wrong value", "missing_field": "missing field",
    "wrong_endpoint": "wrong endpoint", "stuck_looping": "stuck/looping", "off_task": "navigated off task",
    "verification_wall": "blocked by a verification wall/CAPTCHA", "limit": "time or step limit",
    "agent_crash": "agent crash", "infrastructure": "infrastructure",
    "wrong_earlier_value": "wrong value in an earlier step"}  # a spec's writes (evaluator/write_failure.py)
CLAIM = re.compile(r"\b(done|completed?|success(ful(ly)?)?|submitted|booked|placed|sent|posted|applied|finished|"
                   r"confirmed|reserved|purchased|ordered)\b", re.I)
NEGATION = re.compile(r"\b(not|cannot|can't|couldn't|could not|unable|failed|fail|didn't|did not|no way|"
                      r"impossible|stopping|give up|gave up)\b", re.I)
LOOP_REPEATS = 3

MODEL_API_ERROR = "model API error: "  # how an agent that got no model answer says why (clawrec/agents/model_api.py)


@dataclass
class Cause:
    category: str | None
    summary: str
    step: int | None = None          # the agent run's step number (trajectory numbering)
    seq: int | None = None           # the action's seq beside it
    action: Step | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"category": self.category, "label": CATEGORIES.get(self.category or "", None),
                "summary": self.summary, "step": self.step, "seq": self.seq,
                "action": self.action.to_dict() if self.action else None, **self.detail}


def _where(tr: Trajectory, s: Step | None) -> str:
    if s is None:
        return ""
    n = tr.number_of(s)
    return f"step {n}" + (f" (seq {s.seq})" if s.seq is not None else "")


def _squash(value: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text(value))


def _name(s: Step) -> str:
    """The element's accessible name inside a step's label (`textbox "Last name"` -> `Last name`)."""
    m = re.search(r'"(.*)"', s.target)
    return m.group(1) if m else s.target


def _label_score(path: str, s: Step) -> int:
    """2: the field's name is the element's name (last_name ~ "Last name"); 1: it is part of it; 0: unrelated."""
    last = [p for p in path.split(".") if not p.isdigit()][-1:] or [path]
    want, name = _squash(last[0]), _squash(_name(s))
    return 2 if want and want == name else 1 if want and want in name else 0


def value_step(tr: Trajectory, path: str, got: Any) -> Step | None:
    """The agent's step that typed or chose `got` for the payload field `path`: the value must agree (typed, or
    shown on the element clicked: a date button, an option); the field's label breaks ties; then the earliest."""
    best: tuple[int, int, Step] | None = None
    for i, s in enumerate(tr.meaningful):
        value_ok = s.value is not None and got is not None and same(s.value, got)[0]
        shown_ok = s.value is None and isinstance(got, (str, int, float)) and str(got) != "" and (
            same(_name(s), got)[0] or text(str(got)) in text(_name(s)))
        if not (value_ok or shown_ok):
            continue
        score = 4 * value_ok + 2 * shown_ok + _label_score(path, s)
        if best is None or score > best[0]:
            best = (score, i, s)
    return best[2] if best else None


def final_claim(run: RunDir) -> tuple[str, Any] | None:
    """The agent's last word if it claims success: (text, agent.jsonl line)."""
    for m in reversed(list(run.agent)):
        if m.role == "tool_call" and m.tool == "done" and isinstance(m.content, dict):
            said = str(m.content.get("summary") or "")
            if m.content.get("success") is False:
                return None
            return (said, m.line) if m.content.get("success") or (CLAIM.search(said) and not NEGATION.search(said)) \
                else None
        if m.role == "assistant" and isinstance(m.content, str) and m.content.strip():
            said = m.content.strip()
            return (said[:300], m.line) if CLAIM.search(said) and not NEGATION.search(said) else None
    return None


def _loop(tr: Trajectory) -> Step | None:
    """The first step of a run of LOOP_REPEATS identical steps (same action, same target) in a row."""
    ms = tr.meaningful
    for i in range(len(ms) - LOOP_REPEATS + 1):
        window = ms[i:i + LOOP_REPEATS]
        if len({(s.key, str(s.value)) for s in window}) == 1 and window[0].type not in ("fill", "navigate"):
            return window[0]
    calls = [m for m in tr.run.agent if m.role == "tool_call"]
    for i in range(len(calls) - LOOP_REPEATS + 1):
        window = calls[i:i + LOOP_REPEATS]
        if len({(c.tool, str(c.content)) for c in window}) == 1 and window[0].tool not in ("wait", "snapshot",
                                                                                          "screenshot"):
            st = tr.at(window[0].t)
            return st.meaningful[0] if st.meaningful else Step(None, st.t0, 0, "call", window[0].tool or "", "")
    return None


def _origin(url: str, run: RunDir) -> str:
    """The site of a URL (evaluator/same_site.py), so that two runs of one site compare equal."""
    return site_of(url, run)


def _off_task(tr: Trajectory, ref: Trajectory | None) -> Step | None:
    """The first navigation to a site the reference never visited, if the run ended there."""
    if ref is None:
        return None
    allowed = {_origin(s.url, ref.run) for s in ref.meaningful if s.url and s.url.startswith("http")}
    navs = [s for s in tr.meaningful if s.type == "navigate" and s.url and s.url.startswith("http")]
    if not allowed or not navs or _origin(navs[-1].url, tr.run) in allowed:
        return None
    return next(s for s in navs if _origin(s.url, tr.run) not in allowed)


def classify(tr: Trajectory, ref: Trajectory | None, verdict: Verdict, rows: list[Any]) -> Cause:
    """The run's failure category and its cause (see the module docstring); category None for a pass."""
    run = tr.run
    if verdict.verdict == "PASS":
        return Cause(None, "no failure: the payload judge passes the run")
    failed = [c for c in verdict.conditions if not c.met]
    earlier = [c for c in failed if is_write(c)]  # the spec's writes before the final request
    failed = [c for c in failed if not is_write(c)]
    caught = bool(run.interceptions.records)
    status, stop = str(run.status or ""), str(run.stop_reason or "")
    last = tr.meaningful[-1] if tr.meaningful else None
    if not caught:
        if status == "crashed":
            return Cause("infrastructure", f"the run crashed before a submission: {stop}", *_at(tr, last))
        if status == "agent_error" and MODEL_API_ERROR in stop:  # the model endpoint failed, not the agent
            return Cause("infrastructure", f"the model API failed before a submission: {stop}", *_at(tr, last))
        if status == "agent_error":
            return Cause("agent_crash", f"the agent failed before a submission: {stop}", *_at(tr, last))
        if (wall := find_wall(run.http, run.agent, tr.console)) is not None:  # evaluator/walls.py
            st = tr.at(wall.t)
            return Cause("verification_wall", f"blocked by a verification wall at step {st.n}: {wall.describe()}",
                         st.n, None, st.meaningful[0] if st.meaningful else None, {"wall": wall.to_dict()})
        if (loop := _loop(tr)) is not None:
            return Cause("stuck_looping", f"stuck: repeats {loop.describe()} from {_where(tr, loop)}",
                         *_at(tr, loop))
        if (off := _off_task(tr, ref)) is not None:
            return Cause("off_task", f"navigated off task at {_where(tr, off)}: {off.url}", *_at(tr, off))
        if status == "timeout" or "limit" in stop:
            return Cause("limit", f"{stop or 'limit reached'}; the last step was {_where(tr, last)}"
                         + (f" {last.describe()}" if last else ""), *_at(tr, last))
        near = next((c for c in failed if "was sent (http.jsonl line" in str(c.detail)), None)
        if near is not None and (cause := _near_miss(tr, ref, near, rows)) is not None:
            return cause
        nxt = _next_reference_step(rows)
        return Cause("never_submitted", f"stopped at {_where(tr, last)}"
                     + (f" {last.describe()}" if last else "")
                     + (f"; the reference went on to {nxt.describe()}" if nxt else ""), *_at(tr, last),
                     {"reference_next": nxt.to_dict() if nxt else None})
    endpoint = next((c for c in failed if c.condition.startswith("Terminal request sent to")), None)
    if endpoint is not None:
        st = tr.at(terminal_order(run.interceptions.records)[0].t)
        return Cause("wrong_endpoint", f"step {st.n} submitted to the wrong endpoint: {endpoint.detail}", st.n,
                     None, st.meaningful[0] if st.meaningful else None)
    if earlier and not failed:  # the final request is right; what the site held from an earlier step is not
        summary, step, action, detail = earlier_cause(tr, earlier)
        return Cause("wrong_earlier_value", summary, step, action.seq if action else None, action, detail)
    catch = terminal_order(run.interceptions.records)[0]  # the one the payload judge judged
    missing = next((c for c in failed if c.detail == "field missing from payload"), None)
    wrong = next((c for c in failed if c.detail != "field missing from payload"), None)
    if missing is not None and wrong is None:
        path = next((e.field for e in missing.evidence if e.field), "")
        st = tr.at(catch.t)
        return Cause("missing_field", f"the submission at step {st.n} has no field {path}", st.n, None,
                     st.meaningful[0] if st.meaningful else None, {"field": path})
    cond = wrong or missing
    path = next((e.field for e in cond.evidence if e.field), "") if cond else ""
    got = catch_value(catch, path) if path else None
    got = None if got is MISSING else got
    s = value_step(tr, path, got) if path else None
    if s is None and got in (None, ""):  # left empty: the reference's step that filled it, which the agent skipped
        row = next((r for r in rows if r.reference is not None and r.status != "same"
                    and _label_score(path, r.reference)), None)
        if row is not None:
            where = f"step {row.agent_step}" if row.agent_step is not None else "the agent"
            summary = (f"{where} left {row.reference.target} empty: the reference filled it at step "
                       f"{row.reference_step} ({row.reference.describe()})")
            return Cause("wrong_value", f"{summary}: {cond.condition} — {cond.detail}" if cond else summary,
                         *_at(tr, row.agent), {"field": path, "value": got,
                                               "reference_step": row.reference_step})
    if s is None:  # e.g. a choice made by clicking something that does not show the value: the first difference
        row = next((r for r in rows if r.status in ("value", "differs") and r.agent is not None), None)
        s = row.agent if row else None
    summary = _value_summary(tr, s, path, got)
    return Cause("wrong_value", f"{summary}: {cond.condition} — {cond.detail}" if cond else summary, *_at(tr, s),
                 {"field": path, "value": got})


def _value_summary(tr: Trajectory, s: Step | None, path: str, got: Any) -> str:
    shown = got if isinstance(got, (str, int, float)) else None
    if s is None or shown is None:
        return f"the field {path} is wrong" + (f" (at {_where(tr, s)} {s.describe()})" if s else "")
    if s.type == "fill":
        return f"{_where(tr, s)} typed {shown!r} into {s.target}"
    return f"{_where(tr, s)} chose {shown!r} ({s.describe()})"


def _near_miss(tr: Trajectory, ref: Trajectory | None, near: Any, rows: list[Any]) -> Cause | None:
    """A request to the rule's URL went out but did not satisfy the rule (an `equals` value differs): the field
    that differs from the reference's caught payload, and the step that chose it. None when the request is not
    that submission at all (most of the reference payload's fields absent: a GraphQL read to the same URL)."""
    run = tr.run
    line = next((e.line for e in near.evidence if e.file == "http.jsonl"), None)
    h = run.http.at_line(line) if line else None
    st = tr.at(h.t if h else None)
    sent = h.body.get("value") if h is not None and isinstance(h.body, dict) else None
    ref_catch = terminal_order(ref.run.interceptions.records)[0] if ref is not None and ref.run.interceptions.records \
        else None
    paths = leaf_paths(ref_catch.body) if ref_catch is not None and isinstance(sent, (dict, list)) else []
    if paths and sum(lookup(sent, p) is not MISSING for p in paths) < len(paths) / 2:
        return None
    for path in paths:
        got, want = lookup(sent, path), catch_value(ref_catch, path)
        if got is want or (got is not MISSING and want is not MISSING and same(got, want)[0]):
            continue
        got = None if got is MISSING else got
        s = value_step(tr, path, got)
        if s is not None:
            return Cause("wrong_value", f"{_value_summary(tr, s, path, got)}: field {path} is {got!r}, the "
                         f"reference sent {want!r}, so the request at step {st.n} did not match the rule and was "
                         "not the task's terminal request", *_at(tr, s), {"field": path, "value": got,
                                                                          "http_line": line})
    return Cause("wrong_value", f"step {st.n} sent {h.method if h else ''} {h.url if h else ''} but its payload "
                 "does not satisfy the rule (not the task's terminal request)", st.n, None,
                 st.meaningful[0] if st.meaningful else None, {"http_line": line})


def _at(tr: Trajectory, s: Step | None) -> tuple[int | None, int | None, Step | None]:
    return (tr.number_of(s), s.seq if s else None, s)


def _next_reference_step(rows: list[Any]) -> Step | None:
    """The reference's first step after the last one the agent also took."""
    last_matched = max((i for i, r in enumerate(rows) if r.agent is not None and r.reference is not None), default=-1)
    return next((r.reference for r in rows[last_matched + 1:] if r.reference is not None), None)
