"""The `writes:` `clawrec annotate` proposes: the earlier writes of a reference run that carry the task's values.

Why: on a multi-step site the final request carries only plumbing (`action=place_order` and a CSRF token); the
quantity, the address and the e-mail reached the site earlier, in requests the task lets through (in a person's
hold-mode run: the ones they Allowed). The spec's `writes:` names them (DESIGN.md "The task spec"; the judge reads
the last matching write that reached the site before the final request). A write is proposed when it is
state-changing (POST/PUT/PATCH/DELETE, not a beacon, not a GraphQL read), reached the site (not intercepted, got a
response) before the terminal request, and some field of it carries one of the task's values: a `user:` value, a
string the instruction quotes, a number the instruction names, or one of the task's files (a multipart part with
its name). Its `expect` holds exactly those fields with the reference's values; plumbing (CSRF tokens, session ids,
timestamps: taskspec/plumbing.py, taskspec/volatile.py) is never one of them. The rule is the intercept rules'
matcher: the URL glob (taskspec/generalize.py), the method, and the action the request names pinned in `equals`
(taskspec/action_field.py). Several requests to one rule: the site holds the last, so only the last is proposed, and
only when it still carries the values; a rule that would read another request than the one proposed from is left
out with a note. Pure data: the run as taskspec/annotate_run.py read it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from rundir import records as R
from taskspec import placeholders
from taskspec.action_field import action_equals, submitter
from taskspec.annotate_run import Run
from taskspec.candidates import MUTATING, is_beacon, sent
from taskspec.distinguish import Sent, caught, distinguishing_fields
from taskspec.fieldpath import is_file_part, leaves
from taskspec.generalize import generalize_url, graphql_reads_only, payload_pairs
from taskspec.model import Rule, default_write_name
from taskspec.plumbing import plumbing_reason
from taskspec.volatile import reason as token_reason

QUOTED = re.compile(r'"([^"\n]+)"|\u201c([^\u201d\n]+)\u201d|(?<!\w)\'([^\'\n]+)\'(?!\w)')
NUMBER = re.compile(r"(?<![\w.,:/-])\d+(?:\.\d+)?(?![\w:/-]|[.,]\d)")
WORDS = {w: n for n, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())}
NUMBER_WORD = re.compile(r"\b(" + "|".join(WORDS) + r")\b", re.I)
SMALL = re.compile(r"\d{1,2}")  # a number this short is everywhere: matched with care (`carried`)
COUNTERS = {"step", "steps", "attempt", "attempts", "page", "retry", "retries", "try", "tries", "version", "rev",
            "revision", "seq", "index", "idx"}
CONTAINED = 12  # a quoted string at least this long also counts inside a longer field (a message body)
REDACTED = "[redacted]"


@dataclass(frozen=True)
class TaskValue:
    """One value of the task, and where it comes from (said in the spec's notes)."""

    value: str
    source: str      # "user.postcode", "the instruction's \"...\"", "the instruction's number", "the task's file"
    kind: str        # text | quoted | number | file


@dataclass
class Proposal:
    """One proposed write: the spec item, the request it was read from, and why each expect field is there."""

    item: dict[str, Any]
    line: int                      # its http.jsonl line
    why: dict[str, str]


def _norm(text: Any) -> str:
    return " ".join(str(text).split()).casefold()


def task_values(run: Run, instruction: str | None = None) -> list[TaskValue]:
    """The task's values: `user:` leaves, the instruction's quoted strings and numbers, the task's file names."""
    out: list[TaskValue] = []
    user = run.task.get("user") if isinstance(run.task.get("user"), dict) else {}
    for path, value in leaves(user):
        if isinstance(value, (str, int, float)) and not isinstance(value, bool) and str(value).strip() \
                and value != REDACTED:
            out.append(TaskValue(str(value), f"user.{path}", "text"))
    text = str(instruction or run.task.get("instruction") or "")
    for m in QUOTED.finditer(text):
        quoted = next(g for g in m.groups() if g is not None).strip()
        if quoted:
            out.append(TaskValue(quoted, f"the instruction's {quoted!r}", "quoted"))
    unquoted = QUOTED.sub(" ", text)
    for m in NUMBER.finditer(unquoted):
        out.append(TaskValue(m.group(0), f"the instruction's number {m.group(0)}", "number"))
    for m in NUMBER_WORD.finditer(unquoted):
        out.append(TaskValue(str(WORDS[m.group(1).lower()]), f"the instruction's number {m.group(1)!r}", "number"))
    files = run.task.get("files") if isinstance(run.task.get("files"), list) else []
    for f in files:
        out.append(TaskValue(PurePath(str(f)).name, f"the task's file {PurePath(str(f)).name}", "file"))
    return out


def carried(path: str, value: Any, values: list[TaskValue]) -> TaskValue | None:
    """The task value a payload field carries, or None (plumbing and volatile fields never carry one)."""
    if plumbing_reason(path) or (not is_file_part(value) and token_reason(path, value)):
        return None
    if is_file_part(value):
        return next((v for v in values if v.kind == "file" and v.value == value.get("filename")), None)
    if isinstance(value, bool) or not isinstance(value, (str, int, float)) or value == REDACTED:
        return None
    field = _norm(value)
    if not field:
        return None
    small = SMALL.fullmatch(field) is not None
    if small and _words(path) & COUNTERS:  # `step=2`, `attempt=1`: the page's counters, never a task value
        return None
    for v in values:
        if small and v.kind == "text" and not _words(path) & _words(v.source.removeprefix("user.")):
            continue  # a 1-2 digit user value only in a field of its own name (`nights=2`, `form-0-quantity=2`)
        if v.kind == "number":
            try:
                if float(str(value).strip()) == float(v.value):
                    return v
            except ValueError:
                continue
        elif v.kind in ("text", "quoted") and (field == _norm(v.value) or (
                v.kind == "quoted" and len(v.value) >= CONTAINED and _norm(v.value) in field)):
            return v
    return None


def _words(text: str) -> set[str]:
    """The words of a field path or a `user.` source (`form-0-quantity` -> {form, quantity})."""
    return {w for w in re.findall(r"[a-z]+", text.lower().split(" ", 1)[0]) if len(w) > 1}


def reached(rec: dict[str, Any]) -> bool:
    """The request reached the site: not intercepted (by a rule or a person), and it got a response."""
    return not rec.get("intercepted") and isinstance(rec.get("response"), dict) and bool(rec["response"].get("status"))


def started(rec: dict[str, Any]) -> float:
    t = rec.get("started", rec.get("t"))
    return float(t) if isinstance(t, (int, float)) else 0.0


def earlier_writes(run: Run, before: float) -> list[tuple[float, Sent]]:
    """(start time, request) of the state-changing requests that reached the site before `before`, in time order."""
    records = dict(run.http)
    out = []
    for s in sent(run):
        rec = records.get(s.line)
        if rec is None or s.method not in MUTATING or not s.known or not s.url.startswith(("http://", "https://")):
            continue
        if is_beacon(rec) or graphql_reads_only(s.value) or not reached(rec) or started(rec) >= before:
            continue
        out.append((started(rec), s))
    return sorted(out, key=lambda ts: (ts[0], ts[1].line))


def _name(method: str, url: str, equals: dict[str, Any], taken: set[str]) -> str:
    name = default_write_name((method,), url, None)
    name += "".join(f" {k}={v}" for k, v in equals.items() if k != "operationName") or (
        f" {equals['operationName']}" if "operationName" in equals else "")
    base, n = name, 2
    while name in taken:
        name, n = f"{base} #{n}", n + 1
    taken.add(name)
    return name


def propose(run: Run, before: float, terminal_line: int | None = None,
            instruction: str | None = None) -> tuple[list[Proposal], list[str]]:
    """(the proposed writes in time order, notes) for a run whose terminal request started at `before`.

    Newest first: a write is proposed when no later write its rule matches would be read instead (the site holds
    the last), after `fields` that tell it apart from those (taskspec/distinguish.py); a write superseded by a later
    proposed one (the person changed the quantity) is dropped silently, any other that cannot be told apart is
    named in a note."""
    values = task_values(run, instruction)
    timed = [(t, s) for t, s in earlier_writes(run, before) if s.line != terminal_line]
    proposals: list[Proposal] = []
    notes, plain, taken = [], [], set()
    for n in range(len(timed) - 1, -1, -1):
        s = timed[n][1]
        pairs, equals = payload_pairs(s.kind, s.value)
        fields = dict(pairs)
        found = {p: v for p, v in ((p, carried(p, v, values)) for p, v in pairs) if v is not None}
        if not found:
            plain.append(s)
            continue
        equals = {**equals, **action_equals(pairs, submitter(run.actions, timed[n][0]))}
        glob = generalize_url(s.url, run.sites)
        matcher = Rule(index=0, url=placeholders.fill(glob, run.sites, strict=False), methods=(s.method,),
                       equals=equals)
        steady = [p for p, v in fields.items() if not token_reason(p, v)]  # a token's presence tells nothing
        later = [w for _t, w in timed[n + 1:]]
        added, left = distinguishing_fields(matcher, s, later, steady)
        if left:
            if not {w.line for w in left} & {p.line for p in proposals}:
                notes.append(f"not proposed as a write: {s.method} {s.url} ({R.HTTP} line {s.line}) carries "
                             f"{', '.join(found)}, but its rule would read a later request instead ({R.HTTP} "
                             f"line(s) {', '.join(str(w.line) for w in left[:5])})")
            continue
        item: dict[str, Any] = {"name": "", "url": glob, "method": s.method}
        if added:
            item["fields"] = list(added)
        if equals:
            item["equals"] = equals
        item["expect"] = dict(_expected(p, fields[p]) for p in found)
        proposals.append(Proposal(item, s.line, {p: v.source for p, v in found.items()}))
    proposals.reverse()
    for p in proposals:  # named in time order: a second write to one endpoint is `#2`
        p.item["name"] = _name(p.item["method"], p.item["url"], p.item.get("equals", {}), taken)
    if plain:
        plain.reverse()
        notes.append(f"{len(plain)} earlier write(s) reached the site without any of the task's values (not "
                     f"proposed): " + "; ".join(f"{s.method} {s.url} ({R.HTTP} line {s.line})" for s in plain[:5]))
    return proposals, notes


def _expected(path: str, value: Any) -> tuple[str, Any]:
    """(expect path, value): a file part is expected by its name (its bytes are the task's file)."""
    return (f"{path}.filename", value["filename"]) if is_file_part(value) else (path, value)


def describe(p: Proposal) -> str:
    """One note line: which write, from where, and which task value each expect field carries."""
    return (f"writes: {p.item['name']} ({R.HTTP} line {p.line}) carries "
            + ", ".join(f"{k} ({why})" for k, why in p.why.items()))
