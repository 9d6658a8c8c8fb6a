"""A Salesforce stand-in on loopback: scratch orgs speaking the REST wire protocol, single-use frontdoor logins and
Lightning record pages that save through Aura, so clawrec's scratch-org path runs unchanged offline (test support, never product code).

API
    from tests.support.salesforce_server import SalesforceStandIn
    with SalesforceStandIn(tmp_path, orgs=["pool1", "pool2"]) as sf:
        sf.env                       # {"CLAWREC_SF_BIN": fake sf, "FAKE_SF_STATE": state file}: set them
        sf.orgs["pool1"].url         # the org's instance URL (each org its own port, as each org its own host)
        sf.orgs["pool1"].records     # {"Account": {id: {fields}}}: the org's data, for assertions
        sf.orgs["pool1"].log         # [{method, path, auth: bearer|cookie|None, body, status}]
        sf.orgs["pool1"].query_answers["FROM Lead"] = (503, "<html>…")  # queries containing it get that answer
        sf.expire_token("pool1")     # the org's token stops working (401 INVALID_SESSION_ID) until refreshed
        sf.pool_file(path, pool=...) # write a clawrec pool file listing the orgs

Per org: GET /services/data/vNN.0/limits, /query?q= (salesforce_soql subset; nextRecordsUrl after `batch`
records), POST /sobjects/X/, GET/PATCH/DELETE /sobjects/X/{id}, DELETE /composite/sobjects?ids=, POST
/ui-api/records, PATCH /ui-api/records/{id}; every answer with `Sforce-Limit-Info`. /services/data takes Bearer
only: the browser's session cookie gets 401 INVALID_SESSION_ID (UI sessions are not API-enabled). Deletes cascade
(Account → Contacts/Opportunities, Lead/Contact → Tasks). GET /services/oauth2/singleaccess?redirect_uri=PATH
(Bearer) → {frontdoor_uri: …/secur/frontdoor.jsp?otp=…&startURL=PATH&cshc=…}; the frontdoor (single use: the
second use gets the login page, 401) sets the `sid` cookie and redirects to startURL. Lightning pages and /aura:
tests/support/salesforce_lightning.py (`org.lightning.save_shape` picks createRecord | saveRecord | ui-api). The
Dev Hub (`sf.hub_url`) creates, deletes and counts orgs for the fake `sf`; `sf.expire_org(alias)` expires one.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import secrets
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from urllib.parse import quote

from aiohttp import web

from tests.support.salesforce_lightning import Lightning
from tests.support.salesforce_soql import SoqlError, parse

FAKE_SF = Path(__file__).resolve().parent / "fake_sf.py"
PREFIXES = {"Account": "001", "Contact": "003", "Lead": "00Q", "Opportunity": "006", "Task": "00T"}
REQUIRED = {"Account": ("Name",), "Contact": ("LastName",), "Lead": ("LastName", "Company"),
            "Opportunity": ("Name", "StageName", "CloseDate")}
CASCADE = {"Account": (("Contact", "AccountId"), ("Opportunity", "AccountId")),  # parent → (child, lookup field)
           "Lead": (("Task", "WhoId"),), "Contact": (("Task", "WhoId"),), "Opportunity": (("Task", "WhatId"),)}
API_LIMIT = 15000
_ids = itertools.count(1)


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000+0000")


def _err(status: int, code: str, message: str, fields: list[str] | None = None) -> web.Response:
    return web.json_response([{"message": message, "errorCode": code, "fields": fields or []}], status=status)


class FakeOrg:
    """One scratch org: its data, token, sessions and request log, served by its own aiohttp app."""

    def __init__(self, alias: str, batch: int = 2000) -> None:
        self.alias = alias
        self.username = f"test-{secrets.token_hex(4)}@example.com"
        self.org_id = "00D" + secrets.token_hex(6).upper()[:12] + "AAA"
        self.token = f"{self.org_id}!{secrets.token_urlsafe(24)}"
        self.records: dict[str, dict[str, dict[str, Any]]] = {}
        self.log: list[dict[str, Any]] = []
        self.otps: dict[str, bool] = {}        # otp → used
        self.sessions: set[str] = set()        # sid cookie values
        self.api_used = 0
        self.batch = batch
        self.fail_deletes = False              # composite deletes answer success: false (a reset that fails)
        self.query_answers: dict[str, tuple[int, str]] = {}  # SOQL substring → (status, raw body): a broken answer
        self._cursors: dict[str, list[dict]] = {}
        self.url = ""
        self.expires = (datetime.now(timezone.utc) + timedelta(days=7)).date().isoformat()
        self.expired = self.deleted = False    # what the Dev Hub knows of it (the fake `sf` fails accordingly)
        self.lightning = Lightning(self)       # pages + /aura; `lightning.save_shape` picks how New forms save

    # ---- data -----------------------------------------------------------------------------------------------
    def insert(self, sobject: str, fields: dict[str, Any]) -> str:
        rid = (PREFIXES.get(sobject, "a00") + f"{next(_ids):012d}AAA")[:18]
        now = _now()
        self.records.setdefault(sobject, {})[rid] = {**fields, "Id": rid, "CreatedDate": now, "SystemModstamp": now,
                                                     "LastModifiedDate": now}
        return rid

    def create_record(self, sobject: str, fields: dict[str, Any]) -> str:
        """A validated insert (REST, Aura, ui-api); ValueError 'REQUIRED_FIELD_MISSING: …' like the real org."""
        missing = [f for f in REQUIRED.get(sobject, ()) if not fields.get(f)]
        if missing:
            raise ValueError(f"REQUIRED_FIELD_MISSING: Required fields are missing: [{', '.join(missing)}]")
        return self.insert(sobject, fields)

    def update_record(self, sobject: str, rid: str, fields: dict[str, Any]) -> None:
        record = self.records.get(sobject, {}).get(rid)
        if record is None:
            raise ValueError("ENTITY_IS_DELETED: entity is deleted")
        record.update(fields)
        record["SystemModstamp"] = record["LastModifiedDate"] = _now()

    def delete(self, sobject: str, rid: str) -> None:
        """Delete a record and, as the real org does, its cascade (Account → Contacts/Opportunities, Lead → Tasks)."""
        self.records[sobject].pop(rid, None)
        for child, lookup in CASCADE.get(sobject, ()):
            for cid in [i for i, r in self.records.get(child, {}).items() if r.get(lookup) == rid]:
                self.delete(child, cid)

    def data(self) -> dict[str, dict[str, dict[str, Any]]]:
        """The org's records without system fields (for comparing states)."""
        system = {"CreatedDate", "SystemModstamp", "LastModifiedDate"}
        return {t: {i: {k: v for k, v in r.items() if k not in system} for i, r in recs.items()}
                for t, recs in self.records.items() if recs}

    def find(self, rid: str) -> tuple[str, dict[str, Any]] | None:
        for sobject, recs in self.records.items():
            if rid in recs:
                return sobject, recs[rid]
        return None

    # ---- HTTP -----------------------------------------------------------------------------------------------
    def app(self) -> web.Application:
        app = web.Application(middlewares=[self._middleware])
        v = "/services/data/{ver:v[0-9]+\\.0}"
        app.router.add_get(v + "/limits", self.limits)
        app.router.add_get(v + "/query", self.query)
        app.router.add_get(v + "/query/{cursor}", self.query_more)
        app.router.add_post(v + "/sobjects/{sobject}/", self.create)
        app.router.add_route("*", v + "/sobjects/{sobject}/{id}", self.one)
        app.router.add_delete(v + "/composite/sobjects", self.delete_many)
        app.router.add_route("*", "/services/oauth2/singleaccess", self.single_access)
        self.lightning.routes(app)
        return app

    def _auth(self, request: web.Request) -> str | None:
        header = request.headers.get("Authorization", "")
        if header == f"Bearer {self.token}" or header[7:] in self.lightning.api_sessions:
            return "bearer"
        if request.cookies.get("sid") in self.sessions:
            return "cookie"
        return None

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Any) -> web.StreamResponse:
        body = await request.text() if request.can_read_body else ""
        entry = {"method": request.method, "path": request.path_qs, "auth": self._auth(request), "body": body,
                 "t": time.time()}
        self.log.append(entry)
        api = request.path.startswith("/services/data/")
        if api and entry["auth"] == "cookie":  # UI sessions are not API-enabled: REST takes Bearer only
            resp: web.StreamResponse = _err(401, "INVALID_SESSION_ID",
                                            "This session is not valid for use with the REST API")
        elif api and entry["auth"] is None:
            resp = _err(401, "INVALID_SESSION_ID", "Session expired or invalid")
        else:
            resp = await handler(request)
        if api:
            self.api_used += 1
            resp.headers["Sforce-Limit-Info"] = f"api-usage={self.api_used}/{API_LIMIT}"
        entry["status"] = resp.status
        return resp

    async def limits(self, request: web.Request) -> web.Response:
        return web.json_response({"DailyApiRequests": {"Max": API_LIMIT, "Remaining": API_LIMIT - self.api_used}})

    def _page(self, rows: list[dict], ver: str) -> dict[str, Any]:
        head, rest = rows[:self.batch], rows[self.batch:]
        doc: dict[str, Any] = {"totalSize": len(rows), "done": not rest, "records": head}
        if rest:
            cursor = f"01g{secrets.token_hex(6)}-{self.batch}"
            self._cursors[cursor] = rest
            doc["nextRecordsUrl"] = f"/services/data/{ver}/query/{cursor}"
        return doc

    async def query(self, request: web.Request) -> web.Response:
        soql = request.query.get("q", "")
        for part, (status, text) in self.query_answers.items():
            if part in soql:  # an org in maintenance, a proxy's error page: not a query result
                return web.Response(status=status, text=text, content_type="text/html")
        try:
            fields, sobject, pred, order, limit = parse(request.query.get("q", ""))
        except (SoqlError, IndexError, ValueError) as exc:
            return _err(400, "MALFORMED_QUERY", str(exc))
        rows = [r for r in self.records.get(sobject, {}).values() if pred(r)]
        if order:
            rows.sort(key=lambda r: str(r.get(order[0]) or ""), reverse=order[1])
        ver = request.match_info["ver"]
        if fields == ["COUNT()"]:
            return web.json_response({"totalSize": len(rows[:limit]), "done": True, "records": []})
        out = [{"attributes": {"type": sobject, "url": f"/services/data/{ver}/sobjects/{sobject}/{r['Id']}"},
                **(dict(r) if fields == ["*"] else {f: r.get(f) for f in fields})} for r in rows[:limit]]
        return web.json_response(self._page(out, ver))

    async def query_more(self, request: web.Request) -> web.Response:
        rows = self._cursors.pop(request.match_info["cursor"], None)
        if rows is None:
            return _err(400, "INVALID_QUERY_LOCATOR", "invalid query locator")
        doc = self._page(rows, request.match_info["ver"])
        doc["totalSize"] = len(rows)
        return web.json_response(doc)

    async def create(self, request: web.Request) -> web.Response:
        sobject = request.match_info["sobject"]
        try:
            fields = await request.json()
        except ValueError:
            return _err(400, "JSON_PARSER_ERROR", "The request body is not JSON")
        try:
            rid = self.create_record(sobject, fields)
        except ValueError as exc:
            code, _, message = str(exc).partition(": ")
            return _err(400, code, message)
        return web.json_response({"id": rid, "success": True, "errors": []}, status=201)

    async def one(self, request: web.Request) -> web.Response:
        sobject, rid = request.match_info["sobject"], request.match_info["id"]
        record = self.records.get(sobject, {}).get(rid)
        if record is None:
            return _err(404, "NOT_FOUND", "The requested resource does not exist")
        if request.method == "GET":
            return web.json_response({"attributes": {"type": sobject}, **record})
        if request.method == "PATCH":
            self.update_record(sobject, rid, await request.json())
            return web.Response(status=204)
        if request.method == "DELETE":
            self.delete(sobject, rid)
            return web.Response(status=204)
        return _err(405, "METHOD_NOT_ALLOWED", f"HTTP Method '{request.method}' not allowed")

    async def delete_many(self, request: web.Request) -> web.Response:
        ids = [i for i in request.query.get("ids", "").split(",") if i]
        if len(ids) > 200:
            return _err(400, "EXCEEDED_ID_LIMIT", "record limit reached. cannot submit more than 200 records")
        out = []
        for rid in ids:
            found = self.find(rid)
            if self.fail_deletes:
                out.append({"id": rid, "success": False, "errors": [
                    {"statusCode": "DELETE_FAILED", "message": "Your attempt to delete this record failed",
                     "fields": []}]})
            elif found is None:
                out.append({"id": rid, "success": False, "errors": [
                    {"statusCode": "ENTITY_IS_DELETED", "message": "entity is deleted", "fields": []}]})
            else:
                self.delete(found[0], rid)
                out.append({"id": rid, "success": True, "errors": []})
        return web.json_response(out)

    async def single_access(self, request: web.Request) -> web.Response:
        """`frontdoor_uri` = …/secur/frontdoor.jsp?otp=…&startURL=…&cshc=… (the help page's shape)."""
        if request.headers.get("Authorization", "") != f"Bearer {self.token}":
            return _err(401, "INVALID_SESSION_ID", "Session expired or invalid")
        otp = secrets.token_urlsafe(32)
        self.otps[otp] = False
        start = quote(request.query.get("redirect_uri", "/lightning/page/home"), safe="")
        return web.json_response({"frontdoor_uri": f"{self.url}/secur/frontdoor.jsp?otp={otp}&startURL={start}"
                                                   f"&cshc={secrets.token_hex(8)}"})



class SalesforceStandIn:
    """Orgs (each on its own 127.0.0.1 port) + a Dev Hub, on one background event loop; writes the state file the
    fake `sf` reads (FAKE_SF_STATE)."""

    def __init__(self, workdir: Path, orgs: list[str] = ("pool1",), batch: int = 2000) -> None:
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.state_path = self.workdir / "fake-sf-state.json"
        self.calls_path = self.workdir / "fake-sf-calls.jsonl"
        self.batch = batch
        self.orgs: dict[str, FakeOrg] = {}
        self.created: list[str] = []           # aliases the Dev Hub created (for its limits)
        self._initial = list(orgs)
        self._runners: list[web.AppRunner] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.hub_url = ""

    @property
    def env(self) -> dict[str, str]:
        return {"CLAWREC_SF_BIN": str(FAKE_SF), "FAKE_SF_STATE": str(self.state_path)}

    def calls(self) -> list[list[str]]:
        if not self.calls_path.exists():
            return []
        return [json.loads(line) for line in self.calls_path.read_text().splitlines() if line.strip()]

    def pool_file(self, path: Path, aliases: list[str] | None = None, pool: str = "default") -> Path:
        names = list(self.orgs) if aliases is None else aliases
        orgs = [{"username": self.orgs[a].username, "alias": a, "pool": pool} for a in names]
        Path(path).write_text(json.dumps({"orgs": orgs}, indent=2))
        return Path(path)

    def expire_org(self, alias: str) -> None:
        """The org expired (its Dev Hub deleted it): the CLI's refresh fails, its REST refuses every token."""
        org = self.orgs[alias]
        org.expired, org.expires = True, "2026-01-01"
        org.token = f"{org.org_id}!expired-{secrets.token_urlsafe(8)}"
        self._write_state()

    def expire_token(self, alias: str) -> None:
        org = self.orgs[alias]
        org.token = f"{org.org_id}!{secrets.token_urlsafe(24)}"  # the CLI's refresh gets the new one
        self._write_state()

    def _write_state(self) -> None:
        with self._lock:
            state = {"orgs": {a: {"username": o.username, "orgId": o.org_id, "instanceUrl": o.url,
                                  "accessToken": o.token, "expirationDate": o.expires, "expired": o.expired,
                                  "deleted": o.deleted} for a, o in self.orgs.items()},
                     "hubUrl": self.hub_url, "calls": str(self.calls_path)}
            tmp = self.state_path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(state, indent=2))
            os.replace(tmp, self.state_path)

    async def _serve(self, app: web.Application) -> str:
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        self._runners.append(runner)
        return f"http://127.0.0.1:{runner.addresses[0][1]}"

    async def _add_org(self, alias: str) -> FakeOrg:
        org = FakeOrg(alias, self.batch)
        org.url = await self._serve(org.app())
        self.orgs[alias] = org
        self._write_state()
        return org

    async def _hub_create(self, request: web.Request) -> web.Response:
        body = await request.json()
        alias = body.get("alias") or f"scratch{len(self.orgs) + 1}"
        org = await self._add_org(alias)
        org.expires = body.get("expirationDate") or org.expires
        self.created.append(alias)
        self._write_state()
        return web.json_response({"alias": alias, "username": org.username, "orgId": org.org_id,
                                  "instanceUrl": org.url})

    async def _hub_delete(self, request: web.Request) -> web.Response:
        self.orgs[(await request.json())["alias"]].deleted = True
        self._write_state()
        return web.json_response({})

    async def _hub_limits(self, request: web.Request) -> web.Response:
        active = sum(1 for a in self.created if not self.orgs[a].deleted and not self.orgs[a].expired)
        return web.json_response({"counts": [active, len(self.created)]})

    async def _start(self) -> None:
        hub = web.Application()
        hub.router.add_post("/_hub/orgs", self._hub_create)
        hub.router.add_post("/_hub/delete", self._hub_delete)
        hub.router.add_get("/_hub/limits", self._hub_limits)
        self.hub_url = await self._serve(hub)
        for alias in self._initial:
            await self._add_org(alias)

    def start(self) -> "SalesforceStandIn":
        ready = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                loop.run_until_complete(self._start())
            except BaseException as exc:
                failure.append(exc)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            for runner in self._runners:
                loop.run_until_complete(runner.cleanup())
            loop.close()

        self._thread = threading.Thread(target=run, name="salesforce-standin", daemon=True)
        self._thread.start()
        ready.wait(15)
        if failure or len(self.orgs) != len(self._initial):
            raise RuntimeError(f"salesforce stand-in did not start: {failure[0] if failure else 'timeout'}")
        return self

    def stop(self) -> None:
        if self._loop and self._thread and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)

    def __enter__(self) -> "SalesforceStandIn":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
