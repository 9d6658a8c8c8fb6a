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
used here.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit


from taskspec.distinguish import Sent, distinguishing_fields, telling_values, unread_look_alikes
from taskspec.generalize import (  # noqa: F401  (re-exported: the annotation API in one place)
    BEACON_WORDS, GRAPHQL_SKIP, generalize_url, graphql_element, graphql_reads_only, is_file_part, is_graphql,
    is_mutation, leaves, placeholder_url, token_reason,
)
from taskspec import dump, placeholders
from rundir.jsondepth import MAX_RECORD_DEPTH
from taskspec.fieldpath import decoded
from taskspec.limits import TooDeep, loads_bounded
from taskspec.match import query_params
from taskspec.model import Rule
from taskspec.plumbing import split_expect
from taskspec.terminal import CAUGHT, HELD, PERSON  # noqa: F401  (a rule's catch; hold mode's block; by a person)
from rundir import records as R

MUTATING = ("POST", "PUT", "PATCH", "DELETE")
BEACON_TYPES = {"ping", "beacon", "cspviolationreport", "csp_report"}
BEACON_HOSTS = ("google-analytics.com", "googletagmanager.com", "doubleclick.net", "segment.io", "sentry.io",
                "hotjar.com", "mixpanel.com", "amplitude.com", "facebook.com/tr", "clarity.ms")
REDACTED = "[redacted]"
TERMINAL_ACTIONS = ("click", "submit", "dblclick")


class AnnotateError(ValueError):
    """Bad input for annotation (not a run, corrupt line, nothing to pick); the CLI prints it as one line."""


@dataclass
class Candidate:
    """One possible terminal request: an HTTP request or a sent WebSocket message."""

    line: int
    t: float
    method: str          # HTTP method, or "WS" for a WebSocket message
    url: str
    kind: str            # body kind: json|urlencoded|multipart|text|empty|... ("json" for a decodable WS message)
    payload: Any
    intercepted: str = ""  # blocked|fulfilled (a rule's catch), held_blocked (hold mode); "" = it went out
    held: int | None = None  # blocked by the person in hold mode: its line in interceptions.jsonl (decision order)
    source: str = R.HTTP     # the file `line` is in: a blocked WebSocket frame is only in interceptions.jsonl
    after_last_action: bool = False
    gap: float = 0.0

    @property
    def is_websocket(self) -> bool:
        return self.method == "WS"

    @property
    def where(self) -> str:
        return f"{self.source} line {self.line}"

    def sent(self) -> Sent:
        """As one of the run's requests (`frames` numbers interceptions.jsonl lines negative, as check-spec does)."""
        return Sent(self.line if self.source == R.HTTP else -self.line, self.method, self.url, self.kind,
                    self.payload)

    def keys(self) -> list[str]:
        body = graphql_element(self.payload) if isinstance(self.payload, list) else self.payload
        if is_graphql(body):
            variables = body.get("variables") if isinstance(body.get("variables"), dict) else {}
            return [f"operationName={body['operationName']}"] + [f"variables.{k}" for k in variables]
        return list(body) if isinstance(body, dict) else []


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


# --- candidates ------------------------------------------------------------------------------------------------

def is_beacon(rec: dict[str, Any]) -> bool:
    """Analytics, pings, beacons, error reports: mutating by method, never the task's submission."""
    if str(rec.get("resource_type") or "").lower() in BEACON_TYPES:
        return True
    url = str(rec.get("url") or "")
    if any(h in url for h in BEACON_HOSTS):
        return True
    words = {w for seg in urlsplit(url).path.lower().split("/") for w in re.split(r"[._]", seg) if w}
    return bool(words & BEACON_WORDS)


def _is_own_channel(rec: dict[str, Any], payload: Any) -> bool:
    """The recorder's own extension channel (actions streamed to clawrec) is never a task request."""
    return isinstance(payload, dict) and payload.get("type") == "events" and "token" in payload


def _decode_ws(text: Any) -> tuple[str, Any]:
    if isinstance(text, str):
        try:
            return "json", loads_bounded(text)
        except ValueError:  # not JSON, or too deep (taskspec/limits.py)
            return "text", text
    return "text", text


def sent(run: Run) -> list[Sent]:
    """Every request and sent WebSocket message of the run with its decoded body. A caught request whose body the
    HTTP layer could not read (a multipart form with a file) gets the body decoded in interceptions.jsonl; any other
    unread body is marked `known=False` (nothing can be decided from it)."""
    catches = list(run.catches)
    out: list[Sent] = []
    for line, rec in run.http:
        if rec.get("type", "request") == "websocket":
            if rec.get("event") == "sent" and rec.get("url"):
                kind, payload = _decode_ws(rec.get("payload"))
                if not _is_own_channel(rec, payload):
                    out.append(Sent(line, "WS", str(rec["url"]), kind, payload))
            continue
        method, url = str(rec.get("method") or "").upper(), str(rec.get("url") or "")
        body = rec.get("body") if isinstance(rec.get("body"), dict) else {}
        kind, value = str(body.get("kind") or "empty"), body.get("value")
        if kind in ("empty", "unavailable") and body.get("complete") is False:  # "empty": runs before issue 16
            catch = next((k for k in catches if k.get("url") == url and str(k.get("method")).upper() == method),
                         None) if rec.get("intercepted") else None
            if catch is None:
                out.append(Sent(line, method, url, kind, value, known=False))
                continue
            catches.remove(catch)
            kind, value = str(catch.get("body_kind") or "json"), catch.get("body")
        out.append(Sent(line, method, url, kind, value))
    return out


def frames(run: Run) -> list[Sent]:
    """The WebSocket messages the run kept from the socket (caught by a rule, or blocked in hold mode): they are in
    interceptions.jsonl only; line -N = its line N."""
    return [Sent(-n, "WS", rec["url"], str(rec.get("body_kind") or "json"), rec.get("body"))
            for n, rec in enumerate(run.catches, 1) if str(rec.get("method")).upper() == "WEBSOCKET"
            and isinstance(rec.get("url"), str) and rec["url"].startswith(("ws://", "wss://"))]


def _held(rec: dict[str, Any]) -> dict[str, Any]:
    return rec["held"] if isinstance(rec.get("held"), dict) else {}


def _person_blocks(run: Run) -> dict[str, int]:
    """interceptions.jsonl line of each request a person blocked in hold mode, by "id NETWORK_ID" (HTTP) or "ws N"
    (a frame, on line N)."""
    return {f"ws {n}" if str(rec.get("method")).upper() == "WEBSOCKET" else f"id {rec.get('network_id')}": n
            for n, rec in enumerate(run.catches, 1) if rec.get("action") == HELD and _held(rec).get("by") in PERSON}


def _action(value: Any) -> str:
    return "blocked" if value is True else str(value or "")  # `true`: runs recorded before the action was named


def candidates(run: Run) -> list[Candidate]:
    """Mutating, non-beacon requests, sent WebSocket messages, and what hold mode blocked (a GET form submission,
    a frame), best first (see `rank`)."""
    out: list[Candidate] = []
    records = dict(run.http)
    person = _person_blocks(run)
    for s in sent(run):
        rec = records[s.line]
        if s.method == "WS":
            out.append(Candidate(s.line, _time(rec), "WS", s.url, s.kind, s.value))
            continue
        action = _action(rec.get("intercepted"))
        caught = action in CAUGHT  # a request the run's rule caught is a candidate, even a beacon or a GET
        if not s.url.startswith(("http://", "https://")) or (is_beacon(rec) and not caught):
            continue
        kind, value = s.kind, s.value
        if s.method == "GET" and (action == HELD or caught):  # a held/caught GET form submission: its query
            kind, value = "urlencoded", query_params(s.url)
        elif s.method not in MUTATING or graphql_reads_only(s.value):
            continue
        out.append(Candidate(s.line, _time(rec), s.method, s.url, kind, value, intercepted=action,
                             held=person.get(f"id {rec['id']}") if action == HELD and rec.get("id") is not None else None))
    for f in frames(run):
        rec = run.catches[-f.line - 1]
        t = _held(rec).get("held_t", rec.get("t"))
        out.append(Candidate(-f.line, float(t) if isinstance(t, (int, float)) else 0.0, "WS", f.url, f.kind, f.value,
                             intercepted=_action(rec.get("action") or "blocked"), held=person.get(f"ws {-f.line}"),
                             source=R.INTERCEPTIONS))
    return rank(out, run.actions)


def _time(rec: dict[str, Any]) -> float:
    t = rec.get("started", rec.get("t"))
    return float(t) if isinstance(t, (int, float)) else 0.0


def _tier(c: Candidate) -> int:
    return 0 if c.intercepted in CAUGHT else 1 if c.held is not None else 2 if c.intercepted else 3


def rank(found: list[Candidate], actions: list[dict[str, Any]]) -> list[Candidate]:
    """Caught requests first; then those a person blocked in hold mode, the last decision first; then those hold
    mode blocked at its timeout; then those after the final click/submit, nearest first; then earlier ones, latest
    first. A person's last click is what sends the submission; requests after it are its effects."""
    last = max((float(a.get("t") or 0) for a in actions
                if a.get("type") in TERMINAL_ACTIONS or (a.get("type") == "keydown" and a.get("key") == "Enter")),
               default=None)
    for c in found:
        c.after_last_action = last is not None and c.t >= last
        c.gap = c.t - last if last is not None else 0.0
    return sorted(found, key=lambda c: (_tier(c), -(c.held or 0), not c.after_last_action,
                                        c.gap if c.after_last_action else -c.t, c.line))


# --- the spec --------------------------------------------------------------------------------------------------

@dataclass
class Options:
    out: Path
    id: str
    instruction: str | None = None
    equals: tuple[str, ...] = ()
    category: str | None = None
    fields: tuple[str, ...] = ()  # fields the rule must also require (added to those that tell the request apart)


def fill_sites(text: str, sites: dict[str, str]) -> str:
    """`{sites.NAME}` replaced by the run's own base URL of that site (to match the run's recorded URLs)."""
    return placeholders.fill(text, sites, strict=False)


def _lines(found: list[Sent]) -> str:
    """Where requests are recorded (see `frames` for the negative lines), at most five per file."""
    http, kept = [str(s.line) for s in found if s.line > 0][:5], [str(-s.line) for s in found if s.line < 0][:5]
    return "; ".join(f"{name} line(s) {', '.join(lines)}" for name, lines in ((R.HTTP, http),
                                                                             (R.INTERCEPTIONS, kept)) if lines)


def build_rule(c: Candidate, sites: dict[str, str], equals_keys: tuple[str, ...], extra: tuple[str, ...] = (),
               others: list[Sent] = ()) -> tuple[dict, dict, list, list[str]]:
    """(intercept rule, expect, volatile, notes) for one candidate; `others` are the run's requests (see `sent`)."""
    body = c.payload
    rule: dict[str, Any] = {"url": generalize_url(c.url, sites)}
    if not c.is_websocket:
        rule["method"] = c.method
    equals: dict[str, Any] = {}
    if isinstance(body, list) and any(is_graphql(e) for e in body):
        body = graphql_element(body)
    if is_graphql(body):
        equals["operationName"] = body["operationName"]
        pairs = [(p, v) for p, v in leaves(body) if p.split(".", 1)[0] not in GRAPHQL_SKIP]
    elif c.kind in ("json", "urlencoded", "multipart") and isinstance(body, (dict, list)):
        # a form field holding JSON (Aura's `message=`) is descended into, as the matcher and the judges do
        pairs = leaves({k: decoded(v) for k, v in body.items()} if isinstance(body, dict) else body)
    else:
        pairs = []
    values = dict(pairs)
    for key in equals_keys:
        if key not in values:
            raise AnnotateError(f"--equals {key}: no such field in the payload (fields: {', '.join(values)})")
        if isinstance(values[key], (dict, list)) or is_file_part(values[key]):
            raise AnnotateError(f"--equals {key}: not a constant value")
        equals[key] = values[key]
    volatile = [p for p, v in pairs if token_reason(p, v)]
    for key in extra:
        if key not in values:
            raise AnnotateError(f"--fields {key}: no such field in the payload (fields: {', '.join(values)})")
    fields = list(dict.fromkeys(extra))
    matcher = Rule(index=0, url=fill_sites(rule["url"], sites), methods=() if c.is_websocket else (c.method,),
                   fields=tuple(fields), equals=equals)
    target = c.sent()
    added, left = distinguishing_fields(matcher, target, others, [p for p, _v in pairs if p not in volatile])
    fields += added
    notes = [f"`fields` {list(added)} tell this request apart from the run's other requests to the same endpoint"
             ] if added else []
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
    if equals:
        rule["equals"] = equals
    return rule, expect, volatile, notes


def start_url(run: Run) -> str:
    nav = next((a.get("url") for a in run.actions if a.get("type") == "navigate"
                and str(a.get("url") or "").startswith(("http://", "https://"))), None)  # not about:blank
    task = run.manifest.get("task") if isinstance(run.manifest.get("task"), dict) else {}
    url = nav or task.get("start_url") or run.task.get("start_url")
    if not url:
        raise AnnotateError(f"{run.path}: no navigation in {R.ACTIONS} and no start URL in the manifest")
    return placeholder_url(str(url), run.sites)


def build_spec(run: Run, c: Candidate, opts: Options) -> dict[str, Any]:
    """The v1 spec as a plain mapping (key order as in DESIGN.md)."""
    instruction = opts.instruction or run.task.get("instruction") or (run.manifest.get("task") or {}).get(
        "instruction")
    if not instruction:
        raise AnnotateError(f"{run.path}: the run records no task instruction; pass --instruction TEXT")
    rule, expect, volatile, notes = build_rule(c, run.sites, opts.equals, opts.fields, sent(run) + frames(run))
    expect, plumbing = split_expect(expect)
    if plumbing:
        notes.append("left out of `expect` (framework plumbing, not what the person meant): "
                     + ", ".join(f"{k} ({why})" for k, why in plumbing.items()))
    run.notes.extend(notes)
    spec: dict[str, Any] = {"version": 1, "id": opts.id}
    if opts.category:
        spec["category"] = opts.category
    spec["instruction"] = " ".join(str(instruction).split())
    spec["start_url"] = start_url(run)
    if isinstance(run.task.get("user"), dict) and run.task["user"]:
        spec["user"] = run.task["user"]
    spec["intercept"] = [rule]
    if expect:
        spec["expect"] = expect
    if volatile:
        spec["volatile"] = volatile
    spec["reference"] = os.path.relpath(run.path.resolve(), opts.out.resolve().parent)
    spec["environment"] = {"kind": "live"}
    return spec


def dump_spec(spec: dict[str, Any], run: Run, c: Candidate) -> str:
    head = (f"Annotated by `clawrec annotate` from {run.path.name} ({c.where}: {c.method} {c.url}).\n"
            "`fields` (each must be present for the rule to catch) lists only what tells this request apart\n"
            "from the run's other requests to the same URL and method; `expect` holds the values the judge\n"
            "compares.\n"
            + "".join(f"Note: {n}\n" for n in dict.fromkeys(run.notes))
            + "Review `intercept`, `expect` and `volatile` before use.\n")
    return dump.dump_spec(spec, head)
