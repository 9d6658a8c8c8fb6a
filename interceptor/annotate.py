"""Turn a recorded run (a person's reference run, or any run) into an interception spec: `clawrec annotate`.

Why a ranking and not a rule: the run's HTTP layer holds every request, and the terminal submission is the one a
person would name by hand: a mutating request (POST/PUT/PATCH/DELETE, or a sent WebSocket message) that is not a
beacon, right after the last click/submit. A request the run already caught (`intercepted`) outranks everything.

The spec is generalized so that it catches the same submission in another run: ids and hashes in the URL path become
`*`, the local sites' random ports become `{sites.NAME}` (when the manifest lists them), token-shaped fields go to
`volatile` instead of `fields`. Only pure data and the record shapes (recorder.records) are used here.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from recorder import records as R

MUTATING = ("POST", "PUT", "PATCH", "DELETE")
BEACON_TYPES = {"ping", "beacon", "cspviolationreport", "csp_report"}
BEACON_WORDS = {"analytics", "collect", "track", "tracking", "telemetry", "beacon", "ping", "log", "logs",
                "logging", "metrics", "rum", "pixel", "stats", "heartbeat", "csp-report", "sentry", "gtm",
                "impression", "impressions", "pageview", "vitals"}
BEACON_HOSTS = ("google-analytics.com", "googletagmanager.com", "doubleclick.net", "segment.io", "sentry.io",
                "hotjar.com", "mixpanel.com", "amplitude.com", "facebook.com/tr", "clarity.ms")
TOKEN_NAME = re.compile(r"(^|[_\-.\[])(csrf|xsrf|nonce|token|authenticity|captcha|recaptcha|signature|sig|hmac|"
                        r"idempotency|request_?id|trace_?id|session_?id|sid|timestamp|ts|uuid|guid|_?wpnonce)"
                        r"($|[_\-.\]])", re.I)
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)
HEX = re.compile(r"[0-9a-f]{16,}", re.I)
B64 = re.compile(r"[A-Za-z0-9+/_\-]{20,}={0,2}")
ISO_TS = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?")
# numeric ids, hex hashes (with a digit), uuids, long mixed-case tokens: path segments that differ between runs
ID_SEGMENT = re.compile(r"\d+|(?=[a-fA-F]*\d)[0-9a-fA-F]{8,}|[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}|"
                        r"(?=\S*[a-z])(?=\S*[A-Z])(?=\S*\d)[A-Za-z0-9_\-]{20,}")
CONTENT_KEYS = {"sha256", "size", "filename", "content_type", "name", "field"}
GRAPHQL_SKIP = {"query", "extensions", "operationName"}
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
    intercepted: bool = False
    after_last_action: bool = False
    gap: float = 0.0

    @property
    def is_websocket(self) -> bool:
        return self.method == "WS"

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

    @property
    def sites(self) -> dict[str, str]:
        sites = self.manifest.get("sites")
        return {str(k): str(v) for k, v in sites.items()} if isinstance(sites, dict) else {}


def read_strict(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(line number, record) of a JSONL file; a corrupt line is an error naming file and line."""
    out = []
    with open(path, encoding="utf-8", errors="replace") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise AnnotateError(f"{path}:{n}: corrupt JSONL line ({exc.msg.removesuffix(' at')} at column {exc.colno})") from None
            if not isinstance(obj, dict):
                raise AnnotateError(f"{path}:{n}: corrupt JSONL line (not a JSON object)")
            out.append((n, obj))
    return out


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
    return Run(p, manifest, task if isinstance(task, dict) else {}, read_strict(p / R.HTTP), actions)


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
            return "json", json.loads(text)
        except ValueError:
            return "text", text
    return "text", text


def candidates(run: Run) -> list[Candidate]:
    """Mutating, non-beacon requests and sent WebSocket messages, best first (see `rank`)."""
    out: list[Candidate] = []
    for line, rec in run.http:
        if rec.get("type", "request") == "websocket":
            if rec.get("event") != "sent" or not rec.get("url"):
                continue
            kind, payload = _decode_ws(rec.get("payload"))
            if _is_own_channel(rec, payload):
                continue
            out.append(Candidate(line, _time(rec), "WS", str(rec["url"]), kind, payload))
            continue
        method = str(rec.get("method") or "").upper()
        url = str(rec.get("url") or "")
        if method not in MUTATING or not url.startswith(("http://", "https://")) or is_beacon(rec):
            continue
        body = rec.get("body") if isinstance(rec.get("body"), dict) else {}
        if graphql_reads_only(body.get("value")):
            continue
        out.append(Candidate(line, _time(rec), method, url, str(body.get("kind") or "empty"), body.get("value"),
                             intercepted=bool(rec.get("intercepted"))))
    return rank(out, run.actions)


def _time(rec: dict[str, Any]) -> float:
    t = rec.get("started", rec.get("t"))
    return float(t) if isinstance(t, (int, float)) else 0.0


def rank(found: list[Candidate], actions: list[dict[str, Any]]) -> list[Candidate]:
    """Caught requests first; then those after the final click/submit, nearest first; then earlier ones, latest
    first. A person's last click is what sends the submission; requests after it are its effects."""
    last = max((float(a.get("t") or 0) for a in actions
                if a.get("type") in TERMINAL_ACTIONS or (a.get("type") == "keydown" and a.get("key") == "Enter")),
               default=None)
    for c in found:
        c.after_last_action = last is not None and c.t >= last
        c.gap = c.t - last if last is not None else 0.0
    return sorted(found, key=lambda c: (not c.intercepted, not c.after_last_action,
                                        c.gap if c.after_last_action else -c.t, c.line))


# --- generalization --------------------------------------------------------------------------------------------

def token_reason(path: str, value: Any) -> str | None:
    """Why a payload field differs between correct runs by nature (name or value shape), or None."""
    leaf = path.rsplit(".", 1)[-1]
    if TOKEN_NAME.search(leaf):
        return f"token-like name {leaf!r}"
    if leaf.lower() in CONTENT_KEYS or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return "epoch timestamp" if 1e9 <= value < 2.5e9 or 1e12 <= value < 2.5e12 else None
    if not isinstance(value, str):
        return None
    s = value.strip()
    if UUID.fullmatch(s):
        return "uuid"
    if HEX.fullmatch(s):
        return "hex value"
    if ISO_TS.fullmatch(s):
        return "timestamp"
    if B64.fullmatch(s) and re.search(r"[A-Za-z]", s) and re.search(r"\d", s):
        return "token-like value"
    return None


def leaves(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """(dotted path, value) of every scalar; a multipart file part is one leaf (its field name)."""
    if isinstance(value, dict) and not is_file_part(value):
        items = list(value.items())
    elif isinstance(value, list):
        items = [(str(i), v) for i, v in enumerate(value)]
    else:
        return [(prefix.rstrip("."), value)] if prefix else []
    out: list[tuple[str, Any]] = []
    for k, v in items:
        if isinstance(v, (dict, list)) and v and not is_file_part(v):
            out += leaves(v, f"{prefix}{k}.")
        else:
            out.append((f"{prefix}{k}", v))
    return out


def is_file_part(v: Any) -> bool:
    return isinstance(v, dict) and "filename" in v and ("sha256" in v or "bytes_unavailable" in v or "size" in v)


def is_graphql(v: Any) -> bool:
    return isinstance(v, dict) and isinstance(v.get("query"), str) and "operationName" in v


def is_mutation(v: Any) -> bool:
    return is_graphql(v) and v["query"].lstrip().startswith("mutation")


def graphql_element(batch: list[Any]) -> Any:
    """The element of a batched GraphQL body that does the work: the first mutation that is not a tracking call
    (`TrackEvent`, `logView`), else the first mutation, else the first element."""
    muts = [e for e in batch if is_mutation(e)]
    real = [e for e in muts if not set(re.findall(r"[a-z]+", re.sub(r"([A-Z])", r" \1", e["operationName"] or "")
                                                  .lower())) & (BEACON_WORDS | {"event", "events"})]
    return (real or muts or batch or [None])[0]


def graphql_reads_only(value: Any) -> bool:
    """A GraphQL POST whose operations are all queries: a read, never a terminal submission."""
    ops = value if isinstance(value, list) else [value]
    return bool(ops) and all(is_graphql(o) for o in ops) and not any(is_mutation(o) for o in ops)


def generalize_url(url: str, sites: dict[str, str]) -> str:
    """Glob for a URL: query and fragment dropped (a glob without `?` ignores them), id/hash path segments -> `*`,
    a local site's base URL -> `{sites.NAME}`."""
    parts = urlsplit(url)
    segs = [("*" if ID_SEGMENT.fullmatch(s) else s) for s in parts.path.split("/")]
    path = "/".join(segs) or "/"
    base = f"{parts.scheme}://{parts.netloc}"
    if parts.scheme in ("ws", "wss") and any(urlsplit(s).netloc == parts.netloc for s in sites.values()):
        base = f"{parts.scheme}://{parts.hostname}:*"  # a local site's socket: its port is random per run
    full = base + path
    for name, site in sorted(sites.items(), key=lambda kv: -len(kv[1])):
        site = site if site.endswith("/") else site + "/"
        if full.startswith(site):
            return f"{{sites.{name}}}" + full[len(site):]
        if full + "/" == site:
            return f"{{sites.{name}}}"
    return full


def placeholder_url(url: str, sites: dict[str, str]) -> str:
    """A start URL with its local site base replaced by `{sites.NAME}` (no other generalization)."""
    for name, site in sorted(sites.items(), key=lambda kv: -len(kv[1])):
        site = site if site.endswith("/") else site + "/"
        if url.startswith(site) or url + "/" == site:
            return f"{{sites.{name}}}" + url[len(site):]
    return url


# --- the spec --------------------------------------------------------------------------------------------------

@dataclass
class Options:
    out: Path
    id: str
    instruction: str | None = None
    equals: tuple[str, ...] = ()
    category: str | None = None
    fields: tuple[str, ...] = ()  # restrict the rule's required fields (default: every non-volatile leaf)


def build_rule(c: Candidate, sites: dict[str, str], equals_keys: tuple[str, ...],
               only: tuple[str, ...] = ()) -> tuple[dict, dict, list]:
    """(intercept rule, expect, volatile) for one candidate."""
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
        pairs = leaves(body)
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
    fields = [p for p, _v in pairs if p not in volatile]
    for key in only:
        if key not in values:
            raise AnnotateError(f"--fields {key}: no such field in the payload (fields: {', '.join(values)})")
    fields = [p for p in fields if p in only] if only else fields
    expect = {p: v for p, v in pairs if p not in volatile and not is_file_part(v)
              and isinstance(v, (str, int, float, bool)) and v != REDACTED}
    if fields:
        rule["fields"] = fields
    if equals:
        rule["equals"] = equals
    return rule, expect, volatile


def start_url(run: Run) -> str:
    nav = next((a.get("url") for a in run.actions if a.get("type") == "navigate" and a.get("url")), None)
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
    rule, expect, volatile = build_rule(c, run.sites, opts.equals, opts.fields)
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


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper: yaml.SafeDumper, s: str) -> yaml.Node:
    return dumper.represent_scalar("tag:yaml.org,2002:str", s, style='"' if "{" in s or ":" in s else None)


_Dumper.add_representer(str, _str)


def dump_spec(spec: dict[str, Any], run: Run, c: Candidate) -> str:
    head = (f"# Annotated by `clawrec annotate` from {run.path.name} ({R.HTTP} line {c.line}: {c.method} {c.url}).\n"
            "# Review `fields` (each must be present for the rule to catch), `expect` and `volatile` before use.\n")
    return head + yaml.dump(spec, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
