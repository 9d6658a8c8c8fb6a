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

from taskspec.fieldpath import is_file_part, is_graphql, leaves  # noqa: F401  (re-exported for annotate)

BEACON_WORDS = {"analytics", "collect", "track", "tracking", "telemetry", "beacon", "ping", "log", "logs",
                "logging", "metrics", "rum", "pixel", "stats", "heartbeat", "csp-report", "sentry", "gtm",
                "impression", "impressions", "pageview", "vitals"}
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
