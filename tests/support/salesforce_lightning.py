"""Lightning Experience for the Salesforce stand-in: record pages that save the way the real UI does (test support).

Real Lightning never saves through cookie-authenticated REST: its pages post form-encoded Aura actions to
`/aura?r=N&<action>=1` with `message=<JSON {actions:[{id, descriptor, params}]}>&aura.context=…&aura.pageURI=…
&aura.token=…`, authenticated by the session cookie plus the page's `aura.token`. Three save actions are in public
captures: `aura://RecordUiController/ACTION$createRecord` (params.recordInput{apiName, fields{F: v}}), RecordGvp
`saveRecord` (params.recordRep{id?, apiName, fields{F: {value}}}) and `aura://RecordUiController/ACTION$updateRecord`
(params{recordId, recordInput{fields{F: v}} without apiName}: an edit names no object, only the record's id); newer
pages create through `/services/data/vNN.0/ui-api/records` ({apiName, fields{F: v}}) and update through PATCH
`…/ui-api/records/ID` ({fields}) with an API-enabled session (Bearer).

Also the single-use frontdoor (`/secur/frontdoor.jsp?otp=…&startURL=…`: sets the `sid` cookie) and the UI API
record create/update. Pages (cookie needed, else a redirect to the login page): `/lightning/page/home`,
`/lightning/o/X/list` (and `/home`), `/lightning/o/X/new[?defaultFieldValues=F=v,…]` (a New X form; its Save uses
the org's `save_shape`: createRecord | saveRecord | ui-api), `/lightning/r/X/ID/view` (fields with inline edit; its
Save uses the org's `edit_shape`: saveRecord | updateRecord | ui-api; an Account lists its Contacts with a New
button). Every page has a toast (`role=status`) saying what happened.
"""

from __future__ import annotations

import html
import json
import secrets
from typing import Any, Callable
from urllib.parse import quote

from aiohttp import web

CREATE = "aura://RecordUiController/ACTION$createRecord"
CREATE_QUERY = "aura.RecordUi.createRecord"
SAVE = ("serviceComponent://ui.force.components.controllers.recordGlobalValueProvider."
        "RecordGvpController/ACTION$saveRecord")
SAVE_QUERY = "ui-force-components-controllers-recordGlobalValueProvider.RecordGvp.saveRecord"
UPDATE = "aura://RecordUiController/ACTION$updateRecord"
UPDATE_QUERY = "aura.RecordUi.updateRecord"
SHAPES = ("createRecord", "saveRecord", "ui-api")
EDIT_SHAPES = ("saveRecord", "updateRecord", "ui-api")
FIELDS = {  # (API name, label) shown on pages, in order
    "Lead": [("FirstName", "First Name"), ("LastName", "Last Name"), ("Company", "Company"), ("Email", "Email")],
    "Contact": [("FirstName", "First Name"), ("LastName", "Last Name"), ("Email", "Email"),
                ("AccountId", "Account Name")],
    "Account": [("Name", "Account Name"), ("Phone", "Phone"), ("Website", "Website")],
    "Opportunity": [("Name", "Opportunity Name"), ("StageName", "Stage"), ("CloseDate", "Close Date"),
                    ("AccountId", "Account Name")],
}

LOGIN_PAGE = """<!doctype html><html><head><title>Login | Salesforce</title></head><body>
<h1>Log in to Salesforce</h1><p id="error">{error}</p></body></html>"""


def _err(status: int, code: str, message: str) -> web.Response:
    return web.json_response([{"message": message, "errorCode": code, "fields": []}], status=status)


PAGE = """<!doctype html><html><head><title>{title} | Salesforce</title></head><body>
<header class="slds-global-header"><nav><a href="/lightning/page/home">Home</a> <a href="/lightning/o/Lead/list">Leads</a>
<a href="/lightning/o/Account/list">Accounts</a> <a href="/lightning/o/Contact/list">Contacts</a></nav>
<span id="user">{user}</span></header>
<main><h1>{title}</h1>{main}</main>
<div role="status" id="toast"></div>
<script>
const CFG = {cfg};
let seq = 0;
function toast(text) {{ document.getElementById('toast').textContent = text; }}
async function aura(descriptor, queryName, params) {{
  seq += 1;
  const message = JSON.stringify({{actions: [{{id: seq + ';a', descriptor, callingDescriptor: 'UNKNOWN', params}}]}});
  const body = new URLSearchParams({{message, 'aura.context': JSON.stringify({{mode: 'PROD', app: 'one:one',
    fwuid: 'c3RhbmQtaW4'}}), 'aura.pageURI': location.pathname + location.search, 'aura.token': CFG.token}});
  const r = await fetch('/aura?r=' + seq + '&' + queryName + '=1', {{method: 'POST', credentials: 'same-origin',
    headers: {{'content-type': 'application/x-www-form-urlencoded;charset=UTF-8'}}, body}});
  const doc = await r.json();
  const act = (doc.actions || [])[0] || {{}};
  if (act.state !== 'SUCCESS') throw new Error(((act.error || [])[0] || {{}}).message || ('HTTP ' + r.status));
  return act.returnValue;
}}
async function uiApi(method, path, body) {{
  const r = await fetch('/services/data/v62.0/ui-api/records' + path, {{method, headers: {{
    'content-type': 'application/json', 'Authorization': 'Bearer ' + CFG.apiSession}}, body: JSON.stringify(body)}});
  if (r.status !== (method === 'POST' ? 201 : 200)) throw new Error('HTTP ' + r.status);
  return r.json();
}}
async function save(apiName, fields, recordId) {{
  if (recordId && CFG.editShape === 'updateRecord') {{
    return aura(CFG.update, CFG.updateQuery, {{recordId, recordInput: {{allowSaveOnDuplicate: false, fields}},
      clientOptions: {{}}}});
  }}
  if (recordId && CFG.editShape === 'ui-api') return uiApi('PATCH', '/' + recordId, {{fields}});
  if (recordId) {{
    const rep = {{id: recordId, apiName, fields: {{Id: {{value: recordId}}}}}};
    for (const [k, v] of Object.entries(fields)) rep.fields[k] = {{value: v}};
    return aura(CFG.save, CFG.saveQuery, {{recordRep: rep, recordSaveParams: {{}}}});
  }}
  if (CFG.shape === 'ui-api') return uiApi('POST', '', {{apiName, fields}});
  if (CFG.shape === 'saveRecord') {{
    const rep = {{apiName, fields: {{}}}};
    for (const [k, v] of Object.entries(fields)) rep.fields[k] = {{value: v}};
    return aura(CFG.save, CFG.saveQuery, {{recordRep: rep, recordSaveParams: {{}}}});
  }}
  return aura(CFG.create, CFG.createQuery, {{recordInput: {{allowSaveOnDuplicate: false, apiName, fields}}}});
}}
async function run(what, fn) {{
  toast('Saving…');
  try {{ await fn(); toast(what); }} catch (e) {{ toast('Error: ' + e.message); }}
}}
{script}
</script></body></html>"""

NEW_SCRIPT = """
document.getElementById('save').addEventListener('click', () => run(CFG.apiName + ' "' + CFG.label() + '" was created.',
  () => { const f = {};
          for (const el of document.querySelectorAll('#record [name]')) if (el.value !== '') f[el.name] = el.value;
          return save(CFG.apiName, f, null); }));
CFG.label = () => [...document.querySelectorAll('#record [name=FirstName], #record [name=LastName], #record [name=Name]')]
  .map(e => e.value).join(' ');
"""

VIEW_SCRIPT = """
for (const btn of document.querySelectorAll('button.edit')) btn.addEventListener('click', () => {
  const f = btn.dataset.field;
  document.getElementById('edit-' + f).hidden = false;
  document.getElementById('footer').hidden = false;
});
document.getElementById('save').addEventListener('click', () => run(CFG.apiName + ' was saved.', () => {
  const f = {};
  for (const box of document.querySelectorAll('.inline:not([hidden]) input')) f[box.name] = box.value;
  return save(CFG.apiName, f, CFG.recordId);
}));
"""


def _edit_fields(rid: str, fields: Any) -> dict[str, Any]:
    """An update's fields ({F: v}, `Id` optional but then the record's own); ValueError as the org answers."""
    if not isinstance(fields, dict):
        raise ValueError("INVALID_INPUT: fields must be a map of field names to values")
    if fields.get("Id", rid) != rid:
        raise ValueError(f"INVALID_ID_FIELD: fields.Id {fields['Id']!r} is not the record {rid}")
    return {k: v for k, v in fields.items() if k != "Id"}


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value))


def _name(sobject: str, rec: dict[str, Any]) -> str:
    if sobject in ("Lead", "Contact"):
        return " ".join(str(rec[k]) for k in ("FirstName", "LastName") if rec.get(k))
    return str(rec.get("Name") or rec.get("Subject") or rec["Id"])


class Lightning:
    """The pages and the /aura endpoint of one FakeOrg (`org`: records, insert/update/find, sessions)."""

    def __init__(self, org: Any) -> None:
        self.org = org
        self.tokens: dict[str, str] = {}        # sid → aura.token of that session
        self.api_sessions: set[str] = set()     # API-enabled session ids handed to ui-api pages (Bearer)
        self.save_shape = "createRecord"        # how New record forms save
        self.edit_shape = "saveRecord"          # how a record page's inline edit saves

    def routes(self, app: web.Application) -> None:
        app.router.add_get("/lightning/page/home", self._guard(self.home))
        app.router.add_get("/lightning/o/{sobject}/list", self._guard(self.listing))
        app.router.add_get("/lightning/o/{sobject}/home", self._guard(self.listing))
        app.router.add_get("/lightning/o/{sobject}/new", self._guard(self.new))
        app.router.add_get("/lightning/r/{sobject}/{id}/view", self._guard(self.view))
        app.router.add_post("/aura", self.aura)
        app.router.add_get("/secur/frontdoor.jsp", self.frontdoor)
        app.router.add_get("/", self.login_page)
        v = "/services/data/{ver:v[0-9]+\\.0}"
        app.router.add_post(v + "/ui-api/records", self.ui_create)
        app.router.add_patch(v + "/ui-api/records/{id}", self.ui_update)

    async def ui_create(self, request: web.Request) -> web.Response:
        """UI API record create: {apiName, fields{F: v}} → 201 {apiName, id, fields{F: {value, displayValue}}}."""
        try:
            doc = await request.json()
            sobject, fields = str(doc["apiName"]), dict(doc["fields"])
        except (ValueError, KeyError, TypeError):
            return _err(400, "INVALID_INPUT", "apiName and fields are required")
        try:
            rid = self.org.create_record(sobject, fields)
        except ValueError as exc:
            code, _, message = str(exc).partition(": ")
            return _err(400, code, message)
        rec = self.org.records[sobject][rid]
        return web.json_response({"apiName": sobject, "id": rid, "fields": {
            k: {"value": v, "displayValue": None} for k, v in rec.items()}}, status=201)

    async def ui_update(self, request: web.Request) -> web.Response:
        """UI API record update: {fields{F: v}}; apiName null or absent (the id names the record)."""
        rid = request.match_info["id"]
        found = self.org.find(rid)
        if found is None:
            return _err(404, "NOT_FOUND", "The requested resource does not exist")
        try:
            doc = await request.json()
        except ValueError:
            return _err(400, "JSON_PARSER_ERROR", "The request body is not JSON")
        if not isinstance(doc, dict) or not isinstance(doc.get("fields"), dict):
            return _err(400, "INVALID_INPUT", "fields is required")
        if doc.get("apiName") not in (None, found[0]):
            return _err(400, "INVALID_INPUT", f"apiName {doc['apiName']!r} does not match the record {rid}")
        try:
            self.org.update_record(found[0], rid, _edit_fields(rid, doc["fields"]))
        except ValueError as exc:
            code, _, message = str(exc).partition(": ")
            return _err(400, code, message)
        return web.json_response({"apiName": found[0], "id": rid, "fields": {
            k: {"value": v, "displayValue": None} for k, v in self.org.records[found[0]][rid].items()}})

    async def frontdoor(self, request: web.Request) -> web.Response:
        otp = request.query.get("otp", "")
        if otp not in self.org.otps or self.org.otps[otp]:
            return web.Response(status=401, content_type="text/html",
                                text=LOGIN_PAGE.format(error="Your login link is invalid or has already been used."))
        self.org.otps[otp] = True
        sid = secrets.token_urlsafe(24)
        self.org.sessions.add(sid)
        target = request.query.get("retURL") or request.query.get("startURL") or "/lightning/page/home"
        if not target.startswith("/"):
            target = "/"
        resp = web.Response(status=302, headers={"Location": target})
        resp.set_cookie("sid", sid, httponly=True, path="/")
        return resp

    async def login_page(self, request: web.Request) -> web.Response:
        return web.Response(content_type="text/html", text=LOGIN_PAGE.format(error=""))

    def _guard(self, handler: Callable) -> Callable:
        async def page(request: web.Request) -> web.StreamResponse:
            sid = request.cookies.get("sid")
            if sid not in self.org.sessions:
                return web.Response(status=302, headers={"Location": "/?ec=302&startURL=" + quote(request.path_qs)})
            return await handler(request, sid)
        return page

    def _page(self, sid: str, title: str, main: str, script: str, **cfg: Any) -> web.Response:
        token = self.tokens.setdefault(sid, "eyJub25jZSI6" + secrets.token_urlsafe(32))
        cfg = {"token": token, "create": CREATE, "createQuery": CREATE_QUERY, "save": SAVE, "saveQuery": SAVE_QUERY,
               "update": UPDATE, "updateQuery": UPDATE_QUERY, "shape": self.save_shape,
               "editShape": self.edit_shape, **cfg}
        if cfg.get("apiName") and (self.edit_shape if cfg.get("recordId") else self.save_shape) == "ui-api":
            api = f"{self.org.org_id}!{secrets.token_urlsafe(24)}"
            self.api_sessions.add(api)
            cfg["apiSession"] = api
        body = PAGE.format(title=_e(title), user=_e(self.org.username), main=main, script=script,
                           cfg=json.dumps(cfg).replace("</", "<\\/"))
        return web.Response(content_type="text/html", text=body)

    async def home(self, request: web.Request, sid: str) -> web.Response:
        return self._page(sid, "Home", "<p>Welcome to Salesforce.</p>", "")

    async def listing(self, request: web.Request, sid: str) -> web.Response:
        sobject = request.match_info["sobject"]
        rows = "".join(f'<tr><th><a href="/lightning/r/{sobject}/{_e(i)}/view">{_e(_name(sobject, r))}</a></th></tr>'
                       for i, r in self.org.records.get(sobject, {}).items())
        main = (f'<a class="new" href="/lightning/o/{sobject}/new" role="button">New</a>'
                f'<table aria-label="{sobject} list"><tbody>{rows}</tbody></table>')
        return self._page(sid, f"{sobject}s", main, "")

    def _input(self, field: str, label: str, value: Any = "") -> str:
        if field == "AccountId":
            opts = "".join(f'<option value="{_e(i)}"{" selected" if i == value else ""}>{_e(r.get("Name"))}</option>'
                           for i, r in self.org.records.get("Account", {}).items())
            return (f'<label for="f-{field}">{label}</label> <select id="f-{field}" name="{field}">'
                    f'<option value="">Search Accounts…</option>{opts}</select>')
        return f'<label for="f-{field}">{label}</label> <input id="f-{field}" name="{field}" value="{_e(value)}">'

    async def new(self, request: web.Request, sid: str) -> web.Response:
        sobject = request.match_info["sobject"]
        defaults = dict(p.split("=", 1) for p in request.query.get("defaultFieldValues", "").split(",") if "=" in p)
        inputs = "".join(f"<div>{self._input(f, label, defaults.get(f, ''))}</div>" for f, label in
                         FIELDS.get(sobject, [("Name", "Name")]))
        main = (f'<form id="record" aria-label="New {sobject}" onsubmit="return false">{inputs}'
                '<button id="save" type="button">Save</button></form>')
        return self._page(sid, f"New {sobject}", main, NEW_SCRIPT, apiName=sobject)

    async def view(self, request: web.Request, sid: str) -> web.Response:
        sobject, rid = request.match_info["sobject"], request.match_info["id"]
        rec = self.org.records.get(sobject, {}).get(rid)
        if rec is None:
            return web.Response(status=404, content_type="text/html", text="<h1>Record not found</h1>")
        rows = []
        for f, label in FIELDS.get(sobject, [("Name", "Name")]):
            rows.append(f'<div class="field"><span class="label">{label}</span> <span id="v-{f}">{_e(rec.get(f))}'
                        f'</span> <button class="edit" type="button" data-field="{f}" aria-label="Edit {label}">'
                        f'&#9998;</button><span class="inline" id="edit-{f}" hidden>'
                        f'{self._input(f, label, rec.get(f))}</span></div>')
        related = ""
        if sobject == "Account":
            items = "".join(f'<li><a href="/lightning/r/Contact/{_e(i)}/view">{_e(_name("Contact", c))}</a></li>'
                            for i, c in self.org.records.get("Contact", {}).items() if c.get("AccountId") == rid)
            related = (f'<section aria-label="Contacts"><h2>Contacts</h2><ul>{items}</ul>'
                       f'<a role="button" href="/lightning/o/Contact/new?defaultFieldValues=AccountId={_e(rid)}">'
                       'New Contact</a></section>')
        main = (f'<div id="record">{"".join(rows)}</div><div id="footer" hidden>'
                f'<button id="save" type="button">Save</button></div>{related}')
        return self._page(sid, _name(sobject, rec), main, VIEW_SCRIPT, apiName=sobject, recordId=rid)

    # ---- /aura ----------------------------------------------------------------------------------------------
    async def aura(self, request: web.Request) -> web.Response:
        sid = request.cookies.get("sid")
        form = await request.post()
        if sid not in self.org.sessions or form.get("aura.token") != self.tokens.get(sid):
            return web.json_response({"event": {"descriptor": "markup://aura:invalidSession",
                                                "attributes": {"values": {}}}, "exceptionEvent": True}, status=401)
        try:
            actions = json.loads(str(form.get("message", "")))["actions"]
        except (ValueError, KeyError, TypeError):
            return web.json_response({"message": "Invalid message", "exceptionEvent": True}, status=400)
        out = [self._action(a) for a in actions]
        return web.json_response({"actions": out, "context": {"mode": "PROD"}, "perfSummary": {}})

    def _action(self, action: dict[str, Any]) -> dict[str, Any]:
        params = action.get("params") or {}
        try:
            if action.get("descriptor") == CREATE:
                inp = params["recordInput"]
                rid = self.org.create_record(inp["apiName"], dict(inp["fields"]))
                value = self._rep(inp["apiName"], rid)
            elif action.get("descriptor") == SAVE:
                rep = params["recordRep"]
                fields = {k: v.get("value") for k, v in rep["fields"].items() if k != "Id"}
                if rep.get("id"):
                    self.org.update_record(rep["apiName"], rep["id"], fields)
                    rid = rep["id"]
                else:
                    rid = self.org.create_record(rep["apiName"], fields)
                value = self._rep(rep["apiName"], rid)
            elif action.get("descriptor") == UPDATE:
                rid, inp = params["recordId"], params["recordInput"]
                found = self.org.find(rid) if isinstance(rid, str) else None
                if found is None:
                    raise ValueError(f"INVALID_ID_FIELD: no record {rid!r}")
                if inp.get("apiName") not in (None, found[0]):
                    raise ValueError(f"INVALID_TYPE: apiName {inp['apiName']!r} does not match the record {rid}")
                self.org.update_record(found[0], rid, _edit_fields(rid, inp["fields"]))
                value = self._rep(found[0], rid)
            else:
                raise ValueError(f"Unknown action {action.get('descriptor')}")
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            return {"id": action.get("id"), "state": "ERROR", "returnValue": None,
                    "error": [{"message": str(exc), "exceptionType": "aura.AuraHandledException"}]}
        return {"id": action.get("id"), "state": "SUCCESS", "returnValue": value, "error": []}

    def _rep(self, sobject: str, rid: str) -> dict[str, Any]:
        rec = self.org.records[sobject][rid]
        return {"apiName": sobject, "id": rid, "fields": {k: {"value": v} for k, v in rec.items()}}
