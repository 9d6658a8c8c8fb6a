"""The few Salesforce REST calls a scratch-org run needs (query, create, read, update, delete), over aiohttp.

Why not simple-salesforce: it is synchronous (requests) and aiohttp is already a dependency; five calls do not
justify a second HTTP stack. A 401 INVALID_SESSION_ID asks the CLI for a fresh token once and retries.
"""

from __future__ import annotations

import json
from typing import Any, Awaitable, Callable
from urllib.parse import quote

import aiohttp

from clawrec.environments import EnvironmentFailed

COMPOSITE_DELETE_MAX = 200  # ids per DELETE /composite/sobjects


class OrgUnreachable(EnvironmentFailed):
    """The org itself failed (network, 401 after a token refresh, 5xx, the CLI's refresh refused): the pool marks
    it unreachable instead of leasing it again."""


def _query_page(doc: Any, soql: str) -> dict[str, Any]:
    """`doc` when it is a query result page ({totalSize, done, records: [{…}]}); else EnvironmentFailed."""
    records = doc.get("records") if isinstance(doc, dict) else None
    total = doc.get("totalSize") if isinstance(doc, dict) else None
    if (not isinstance(total, int) or isinstance(total, bool) or total < 0 or not isinstance(records, list)
            or not all(isinstance(r, dict) for r in records)):
        raise EnvironmentFailed(f"salesforce-scratch: query {soql[:80]!r}: malformed answer (not a query result): "
                                f"{str(doc)[:160]}")
    return doc


class SalesforceRest:
    def __init__(self, instance_url: str, token: str, api_version: str,
                 refresh: Callable[[], Awaitable[str]] | None = None, timeout: float = 60.0) -> None:
        self.base = instance_url.rstrip("/")
        self.data = f"/services/data/v{api_version}"
        self.token, self.refresh = token, refresh
        self.api_usage: str | None = None   # last Sforce-Limit-Info (api-usage=used/limit)
        self.server_date: str | None = None  # last Date header (the org's clock)
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout))

    async def close(self) -> None:
        await self._session.close()

    async def request(self, method: str, path: str, body: Any = None) -> Any:
        url = path if path.startswith("http") else self.base + path
        for attempt in (0, 1):
            headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
            try:
                async with self._session.request(method, url, json=body, headers=headers) as resp:
                    self.api_usage = resp.headers.get("Sforce-Limit-Info", self.api_usage)
                    self.server_date = resp.headers.get("Date", self.server_date)
                    text = await resp.text()
                    status = resp.status
            except (aiohttp.ClientError, TimeoutError) as exc:
                raise OrgUnreachable(f"salesforce-scratch: {method} {path.split('?')[0]}: "
                                     f"{type(exc).__name__}: {exc}") from None
            if status == 401 and attempt == 0 and self.refresh is not None:
                try:
                    self.token = await self.refresh()
                except EnvironmentFailed as exc:
                    if type(exc).__name__ == "CliMissing":
                        raise
                    raise OrgUnreachable(str(exc)) from None
                continue
            break
        doc: Any = None
        if text:
            try:
                doc = json.loads(text)
            except ValueError:
                doc = text
        if status >= 400:
            err = doc[0] if isinstance(doc, list) and doc and isinstance(doc[0], dict) else {}
            why = f"{err.get('errorCode', '')}: {err.get('message', '')}" if err else str(doc)[:200]
            error = OrgUnreachable if status == 401 or status >= 500 else EnvironmentFailed
            raise error(f"salesforce-scratch: {method} {path.split('?')[0]}: HTTP {status} {why}")
        return doc

    async def query(self, soql: str) -> list[dict[str, Any]]:
        """All records of a SOQL query (follows nextRecordsUrl)."""
        return (await self.query_all(soql))[1]

    async def query_all(self, soql: str) -> tuple[int, list[dict[str, Any]]]:
        """(totalSize, all records) of a SOQL query (follows nextRecordsUrl; totalSize is the first page's, the
        query's total). An answer that is not a query result is EnvironmentFailed, never a count of 0."""
        doc = _query_page(await self.request("GET", f"{self.data}/query?q={quote(soql)}"), soql)
        total, records = doc["totalSize"], list(doc["records"])
        while not doc.get("done", True) and doc.get("nextRecordsUrl"):
            doc = _query_page(await self.request("GET", str(doc["nextRecordsUrl"])), soql)
            records += doc["records"]
        return total, records

    async def create(self, sobject: str, fields: dict[str, Any]) -> str:
        doc = await self.request("POST", f"{self.data}/sobjects/{sobject}/", fields)
        if not isinstance(doc, dict) or not doc.get("success") or not doc.get("id"):
            raise EnvironmentFailed(f"salesforce-scratch: creating a {sobject} failed: {doc}")
        return str(doc["id"])

    async def update(self, sobject: str, record_id: str, fields: dict[str, Any]) -> None:
        await self.request("PATCH", f"{self.data}/sobjects/{sobject}/{record_id}", fields)

    async def delete_many(self, ids: list[str]) -> list[dict[str, Any]]:
        """DELETE /composite/sobjects in chunks of 200 (allOrNone=false); per-item results."""
        results: list[dict[str, Any]] = []
        for i in range(0, len(ids), COMPOSITE_DELETE_MAX):
            chunk = ",".join(ids[i:i + COMPOSITE_DELETE_MAX])
            results += await self.request("DELETE", f"{self.data}/composite/sobjects?ids={chunk}&allOrNone=false")
        return results
