"""How one recorded request is generalized into a rule that catches the same submission in another run.

Used by `clawrec annotate` (taskspec/annotate.py): which payload values differ between correct runs by nature
(tokens, nonces, timestamps: `volatile`), the dotted paths of a payload's leaves (a multipart file part is one leaf),
which element of a batched GraphQL body does the work, and a URL glob with ids/hashes as `*` and the local sites'
random ports as `{sites.NAME}`. Pure functions on plain data.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from taskspec.fieldpath import decoded, is_file_part, is_graphql, leaves  # noqa: F401  (re-exported for annotate)
from taskspec.volatile import reason as token_reason  # noqa: F401  (re-exported for annotate)

BEACON_WORDS = {"analytics", "collect", "track", "tracking", "telemetry", "beacon", "ping", "log", "logs",
                "logging", "metrics", "rum", "pixel", "stats", "heartbeat", "csp-report", "sentry", "gtm",
                "impression", "impressions", "pageview", "vitals"}
# numeric ids, hex hashes (with a digit), uuids, long mixed-case tokens: path segments that differ between runs; and
# an object's slug with its id (Django's "the-clockwork-garden_1"): the object the submission is about, so a wrong
# object is still caught (and the payload judge's endpoint check fails it) instead of reaching the site
ID_SEGMENT = re.compile(r"\d+|(?=[a-fA-F]*\d)[0-9a-fA-F]{8,}|[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}|"
                        r"(?=\S*[a-z])(?=\S*[A-Z])(?=\S*\d)[A-Za-z0-9_\-]{20,}|[a-z0-9]+(?:-[a-z0-9]+)*_\d+")
GRAPHQL_SKIP = {"query", "extensions", "operationName"}


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


def payload_pairs(kind: str, body: Any) -> tuple[list[tuple[str, Any]], dict[str, Any]]:
    """(the payload's (dotted path, value) leaves, the `equals` a GraphQL body pins: its operationName). A batched
    GraphQL body is read through the element doing the work; a form field holding JSON (Aura's `message=`) is
    descended into, as the matcher and the judges do; other bodies have no fields."""
    if isinstance(body, list) and any(is_graphql(e) for e in body):
        body = graphql_element(body)
    if is_graphql(body):
        return ([(p, v) for p, v in leaves(body) if p.split(".", 1)[0] not in GRAPHQL_SKIP],
                {"operationName": body["operationName"]})
    if kind in ("json", "urlencoded", "multipart") and isinstance(body, (dict, list)):
        return leaves({k: decoded(v) for k, v in body.items()} if isinstance(body, dict) else body), {}
    return [], {}


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
