"""The replay lookup index: an archive's exchanges by tier, and the answer to one request.

Tiers, tried in order: `exact` (method, URL, body), `key` (the pywb/cdxj key), `normalized` (cache-busters such as
`_`, `ts`, `timestamp`, `cb`, the spec's volatile fields and the fields archived `[redacted]` ignored, in the query
and the body), `nearest` (GET only: the recorded URL of the same path sharing the most query parameters). Repeated
identical requests get the recorded responses in recorded order, then the last one again (a counter per tier and
key). Synthesized as browsers need (archive/synth.py): CORS preflights, Range (206 slices) and HEAD answered from
the GET.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Hashable, Iterable

from archive import keys
from archive.warc import Exchange

TIERS = ("exact", "key", "normalized", "nearest")


@dataclass
class Hit:
    exchange: Exchange | None
    tier: str  # exact | key | normalized | nearest | miss


class ReplayIndex:
    """Built once from an archive's exchanges; `lookup` is pure apart from the repeat counters."""

    def __init__(self, exchanges: Iterable[Exchange], volatile: Iterable[str] = ()) -> None:
        # A 304 carries no body (it revalidated the browser's cached copy): the full response recorded before it
        # answers instead (a replay runs with the cache off, so a 304 would leave the page empty).
        self.exchanges = [e for e in exchanges if e.status and e.status != 304]
        # fields archived as [redacted] (a CSRF token: the page replays the value it is served) count as volatile
        redacted = {k for e in self.exchanges for k in keys.redacted_fields(e.url, _ctype(e.req_headers), e.req_body)}
        self.volatile = frozenset(volatile) | frozenset(redacted)
        self._buckets: dict[str, dict[Hashable, list[Exchange]]] = {t: {} for t in TIERS}
        self._served: dict[tuple[str, Hashable], int] = {}
        for ex in self.exchanges:
            for tier, key in self._keys(ex.method, ex.url, _ctype(ex.req_headers), ex.req_body).items():
                self._buckets[tier].setdefault(key, []).append(ex)

    def _keys(self, method: str, url: str, ctype: str, body: bytes) -> dict[str, Hashable]:
        out: dict[str, Hashable] = {
            "exact": keys.exact_key(method, url, body),
            "key": keys.cdxj_key(method, url, ctype, body),
            "normalized": keys.normalized_key(method, url, ctype, body, self.volatile),
        }
        if method.upper() == "GET":
            out["nearest"] = keys.path_key(url)
        return out

    def lookup(self, method: str, url: str, headers: dict[str, str] | None = None, body: bytes = b"") -> Hit:
        """The recorded exchange that answers this request, and the tier that found it (`miss`: none)."""
        ctype = _get(headers or {}, "content-type")
        wanted = self._keys(method, url, ctype, body)
        for tier in TIERS:
            key = wanted.get(tier)
            if key is None:
                continue
            found = self._buckets[tier].get(key)
            if not found:
                continue
            if tier == "nearest":
                found = _nearest(found, url)
                key = (key, found[0].url)
            return Hit(self._next(tier, key, found), tier)
        return Hit(None, "miss")

    def _next(self, tier: str, key: Hashable, found: list[Exchange]) -> Exchange:
        n = self._served.get((tier, key), 0)
        self._served[(tier, key)] = n + 1
        return found[min(n, len(found) - 1)]

    def first_document(self) -> Exchange | None:
        """The first recorded HTML page that was not a redirect (the start page a WACZ opens on)."""
        return next((e for e in self.exchanges if e.method == "GET" and 200 <= e.status < 300
                     and "html" in e.header("content-type").lower()), None)


def _nearest(found: list[Exchange], url: str) -> list[Exchange]:
    """The recorded URLs of one path, the one sharing the most query parameters first (ties: recorded order);
    only exchanges of that URL are returned (their repeats are served in order)."""
    want = keys.query_pairs(url)
    score: Callable[[Exchange], Any] = lambda e: (-len(want & keys.query_pairs(e.url)),
                                                   len(keys.query_pairs(e.url) ^ want), e.order)
    best = min(found, key=score)
    return [e for e in found if e.url == best.url]


def _get(headers: dict[str, str], name: str) -> str:
    low = name.lower()
    return next((str(v) for k, v in headers.items() if k.lower() == low), "")


def _ctype(headers: list[tuple[str, str]]) -> str:
    return next((v for k, v in headers if k.lower() == "content-type"), "")
