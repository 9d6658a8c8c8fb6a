"""Turn a recorded run (a person's reference run, or any run) into an interception spec: `clawrec annotate`.

Why a ranking and not a rule: the run's HTTP layer holds every request, and the terminal submission is the one a
person would name by hand: a mutating request (POST/PUT/PATCH/DELETE, or a sent WebSocket message) that is not a
beacon, right after the last click/submit. A request the run already caught (`intercepted`) outranks everything;
then the last one the person blocked in hold mode (`clawrec record`): that is where a first run on a new site stops,
and it may be a GET form submission (its fields are its query) or a WebSocket frame that was never sent (it is only in
interceptions.jsonl). The order is check-spec's (taskspec/spec_runs.py): its terminal request is annotate's top one.

The spec is generalized so that it catches the same submission in another run: ids and hashes in the URL path become
`*`, the local sites' random ports become `{sites.NAME}` (when the manifest lists them). The rule's `fields` hold only
what tells the terminal request apart from the run's other requests to the same endpoint (taskspec/distinguish.py;
usually none), so an agent that leaves out an optional field is still caught; the payload's values go to `expect`
(for the judge) and token-shaped fields to `volatile`. Only pure data and the record shapes (rundir.records) are
used here. What is read from the run is taskspec/annotate_run.py; the candidates, their order and the start URL are
taskspec/candidates.py; this module writes the spec (both are re-exported here: the annotation API in one place).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rundir import records as R
from taskspec import dump, placeholders
from taskspec.action_field import action_equals, submitter
from taskspec.annotate_run import AnnotateError, Run, read_run, read_strict  # noqa: F401  (re-exported)
from taskspec.candidates import (  # noqa: F401  (re-exported)
    BEACON_HOSTS, BEACON_TYPES, MUTATING, TERMINAL_ACTIONS, Candidate, candidates, frames, is_beacon, rank, sent,
    start_url,
)
from taskspec.distinguish import Sent, tell_apart, telling_values, unread_look_alikes
from taskspec.generalize import (  # noqa: F401  (re-exported: the annotation API in one place)
    BEACON_WORDS, GRAPHQL_SKIP, generalize_url, graphql_element, graphql_reads_only, is_file_part, is_graphql,
    is_mutation, leaves, payload_pairs, placeholder_url, token_reason,
)
from taskspec.fieldpath import MISSING, is_nonempty
from taskspec.model import Rule
from taskspec.plumbing import split_expect
from taskspec.propose_writes import describe as describe_write, propose
from taskspec.terminal import CAUGHT, HELD, PERSON  # noqa: F401  (a rule's catch; hold mode's block; by a person)

REDACTED = "[redacted]"


@dataclass
class Options:
    out: Path
    id: str
    instruction: str | None = None
    equals: tuple[str, ...] = ()
    category: str | None = None
    fields: tuple[str, ...] = ()  # fields the rule must also require (added to those that tell the request apart)
    nonempty: tuple[str, ...] = ()  # fields the rule must see non-empty (added to those annotate finds)


def fill_sites(text: str, sites: dict[str, str]) -> str:
    """`{sites.NAME}` replaced by the run's own base URL of that site (to match the run's recorded URLs)."""
    return placeholders.fill(text, sites, strict=False)


def _lines(found: list[Sent]) -> str:
    """Where requests are recorded (see `frames` for the negative lines), at most five per file."""
    http, kept = [str(s.line) for s in found if s.line > 0][:5], [str(-s.line) for s in found if s.line < 0][:5]
    return "; ".join(f"{name} line(s) {', '.join(lines)}" for name, lines in ((R.HTTP, http),
                                                                             (R.INTERCEPTIONS, kept)) if lines)


def build_rule(c: Candidate, sites: dict[str, str], equals_keys: tuple[str, ...], extra: tuple[str, ...] = (),
               others: list[Sent] = (), button: dict[str, Any] | None = None,
               full: tuple[str, ...] = ()) -> tuple[dict, dict, list, list[str]]:
    """(intercept rule, expect, volatile, notes) for one candidate; `others` are the run's requests (see `sent`);
    `button`: the submit button the person pressed for it (taskspec/action_field.py), whose field is pinned;
    `extra` and `full`: fields the person requires present (`--fields`) and non-empty (`--nonempty`)."""
    rule: dict[str, Any] = {"url": generalize_url(c.url, sites)}
    if not c.is_websocket:
        rule["method"] = c.method
    pairs, equals = payload_pairs(c.kind, c.payload)
    values = dict(pairs)
    pinned = {k: v for k, v in action_equals(pairs, button).items() if k not in equals_keys}
    for key in equals_keys:
        if key not in values:
            raise AnnotateError(f"--equals {key}: no such field in the payload (fields: {', '.join(values)})")
        if isinstance(values[key], (dict, list)) or is_file_part(values[key]):
            raise AnnotateError(f"--equals {key}: not a constant value")
        equals[key] = values[key]
    equals.update(pinned)
    volatile = [p for p, v in pairs if token_reason(p, v)]
    for key in extra:
        if key not in values:
            raise AnnotateError(f"--fields {key}: no such field in the payload (fields: {', '.join(values)})")
    for key in full:
        if not is_nonempty(values.get(key, MISSING)):
            raise AnnotateError(f"--nonempty {key}: the payload has no such field, or it is empty")
    fields = list(dict.fromkeys(extra))
    matcher = Rule(index=0, url=fill_sites(rule["url"], sites), methods=() if c.is_websocket else (c.method,),
                   fields=tuple(fields), nonempty=tuple(dict.fromkeys(full)), equals=equals)
    target = c.sent()
    told = tell_apart(matcher, target, others, [(p, v) for p, v in pairs if p not in volatile])
    added, left, nonempty = told.fields, list(told.left), [*matcher.nonempty, *told.nonempty]
    fields += added
    equals.update(told.equals)
    notes = [f"`fields` {list(added)} tell this request apart from the run's other requests to the same endpoint"
             ] if added else []
    if told.nonempty:
        notes.append(f"`nonempty` {list(told.nonempty)}: the run's other requests to this endpoint send them empty (a reply's "
                     "text; the same form saved without one is an earlier step)")
    if told.equals:
        notes.append("`equals` pins " + ", ".join(f"{k}={v!r}" for k, v in told.equals.items()) + ": a flag that "
                     "tells this request from the run's other requests to the same endpoint (a send from a draft "
                     "save)")
    if pinned:
        notes.append("`equals` pins " + ", ".join(f"{k}={v}" for k, v in pinned.items()) + ": the action this "
                     "request names (the same URL may receive the flow's other steps)")
    matcher = dataclasses.replace(matcher, fields=tuple(fields), nonempty=tuple(nonempty), equals=equals)
    if unread := unread_look_alikes(matcher, target, others):
        notes.append(f"{len(unread)} other request(s) to this URL and method have no recorded body ({R.HTTP} "
                     f"line(s) {', '.join(str(s.line) for s in unread[:5])}); check the rule does not catch them")
    if left:
        telling = telling_values(matcher, target, left, [(p, v) for p, v in pairs if p not in volatile])
        hint = f" (--equals {telling[0]} would)" if telling else ""
        notes.append(f"the rule also catches {len(left)} other request(s) of the run ({_lines(left)}): add "
                     f"--equals or --fields to tell them apart{hint}")
    expect = {p: v for p, v in pairs if p not in volatile and not is_file_part(v)
              and isinstance(v, (str, int, float, bool)) and v != REDACTED}
    if fields:
        rule["fields"] = fields
    if nonempty:
        rule["nonempty"] = nonempty
    if equals:
        rule["equals"] = equals
    return rule, expect, volatile, notes


def build_spec(run: Run, c: Candidate, opts: Options) -> dict[str, Any]:
    """The v1 spec as a plain mapping (key order as in DESIGN.md)."""
    instruction = opts.instruction or run.task.get("instruction") or (run.manifest.get("task") or {}).get(
        "instruction")
    if not instruction:
        raise AnnotateError(f"{run.path}: the run records no task instruction; pass --instruction TEXT")
    rule, expect, volatile, notes = build_rule(c, run.sites, opts.equals, opts.fields, sent(run) + frames(run),
                                               submitter(run.actions, c.t), opts.nonempty)
    expect, plumbing = split_expect(expect)
    if plumbing:
        notes.append("left out of `expect` (framework plumbing, not what the person meant): "
                     + ", ".join(f"{k} ({why})" for k, why in plumbing.items()))
    proposals, write_notes = propose(run, c.t, c.line if c.source == R.HTTP else None, instruction)
    run.writes_seen = {p.item["name"]: p.line for p in proposals}
    run.notes.extend(notes + [describe_write(p) for p in proposals] + write_notes)
    spec: dict[str, Any] = {"version": 1, "id": opts.id}
    if opts.category:
        spec["category"] = opts.category
    spec["instruction"] = " ".join(str(instruction).split())
    spec["start_url"] = start_url(run)
    if isinstance(run.task.get("user"), dict) and run.task["user"]:
        spec["user"] = run.task["user"]
    spec["intercept"] = [rule]
    if proposals:
        spec["writes"] = [p.item for p in proposals]
    if expect:
        spec["expect"] = expect
    if volatile:
        spec["volatile"] = volatile
    spec["reference"] = os.path.relpath(run.path.resolve(), opts.out.resolve().parent)
    spec["environment"] = {"kind": "live"}
    return spec


def dump_spec(spec: dict[str, Any], run: Run, c: Candidate, path: Path | None = None) -> str:
    head = (f"Annotated by `clawrec annotate` from {run.path.name} ({c.where}: {c.method} {c.url}).\n"
            "`fields` (each must be present for the rule to catch) lists only what tells this request apart\n"
            "from the run's other requests to the same URL and method; `expect` holds the values the judge\n"
            "compares.\n"
            + ("`writes` are the earlier requests that carried the task's values to the site; the judge reads\n"
               "the last matching one before the final request and compares its `expect`.\n"
               if spec.get("writes") else "")
            + "".join(f"Note: {n}\n" for n in dict.fromkeys(run.notes))
            + "Review `intercept`, `writes`, `expect` and `volatile` before use.\n")
    return dump.dump_spec(spec, head, path)
