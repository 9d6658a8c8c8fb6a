"""`intercept: [{salesforce: {save: Lead}}]`: the rules that catch a record save of one sObject, in every shape
Lightning sends it, and the record's fields read back from whichever shape was caught.

Why a helper: real Lightning saves through form-encoded Aura actions (`/aura?r=N&…`, the action list JSON in the
`message` field), and which action depends on the page and the release; newer pages use the UI API. Task authors
should name the object, not write Aura paths by hand, and `expect` should name record fields (`FirstName`), so one
spec fits every shape. Shapes (public captures of Lightning; tests/support/salesforce_lightning.py speaks them):
- Aura createRecord: `message.actions.*.params.recordInput` = {apiName, fields{F: v}}
- Aura RecordGvp saveRecord: `message.actions.*.params.recordRep` = {id?, apiName, fields{F: {value}}} (new record
  or edit)
- Aura updateRecord (inline edit, edit form; LDS maps UI API PATCH to it): `params` = {recordId, recordInput{apiName
  null or absent, fields{Id?, F: v}}, clientOptions?}
- UI API: POST `/services/data/vNN.0/ui-api/records` {apiName, fields{F: v}}; PATCH `…/ui-api/records/ID` {fields}
Rules match on the object only (no Aura descriptor): an unknown descriptor spelling must not let a save through.
An update names no object: it is tied to one by its record id's key prefix (the id's first 3 characters, fixed per
standard object: KEY_PREFIXES), found in the same Aura action as the save's record input (`each` action on its
own, so a read of an Account batched with a save of a Lead is not an Account save). Custom objects' prefixes differ
per org: their updates are caught only when they name the object (apiName).
"""

from __future__ import annotations

import re
from typing import Any

from taskspec.fieldpath import MISSING, lookup
from taskspec.model import Respond, Rule

AURA_URL = "**/aura"
UI_API_URL = "**/services/data/*/ui-api/records"
ACTIONS = "message.actions.*"
CREATE_PATH = f"{ACTIONS}.params.recordInput"
SAVE_PATH = f"{ACTIONS}.params.recordRep"
KEY_PREFIXES = {"Account": "001", "Contact": "003", "Lead": "00Q", "Opportunity": "006", "Case": "500",
                "Task": "00T", "Event": "00U", "Campaign": "701"}
SHAPES = ("aura-createRecord", "aura-saveRecord", "aura-updateRecord", "ui-api")
UI_API_KEYS = {"apiName", "fields", "allowSaveOnDuplicate"}  # a UI API record body (an update: apiName null/absent)
RECORD_ID = re.compile(r"[a-zA-Z0-9]{15}(?:[a-zA-Z0-9]{3})?")


def save_rules(sobject: str, index: int, respond: Respond | None = None) -> list[Rule]:
    """The rules for saves of `sobject` (indexes from `index` on, renumbered by the caller): by apiName, then (a
    standard object) by key prefix: UI API PATCH, Aura updateRecord (recordId or fields.Id), saveRecord by id."""
    respond = respond or Respond()
    aura = {"url": AURA_URL, "methods": ("POST",), "respond": respond}
    rules = [
        Rule(index=index, equals={f"{CREATE_PATH}.apiName": sobject}, **aura),
        Rule(index=index + 1, equals={f"{SAVE_PATH}.apiName": sobject}, **aura),
        Rule(index=index + 2, url=UI_API_URL, methods=("POST",), equals={"apiName": sobject}, respond=respond),
    ]
    key = KEY_PREFIXES.get(sobject)
    if key is not None:
        rules += [
            Rule(index=index + 3, url=f"{UI_API_URL}/{key}*", methods=("PATCH",), respond=respond),
            Rule(index=index + 4, each=ACTIONS, fields=("params.recordInput.fields",),
                 prefix={"params.recordId": key}, **aura),
            Rule(index=index + 5, each=ACTIONS, prefix={"params.recordInput.fields.Id": key}, **aura),
            Rule(index=index + 6, each=ACTIONS, fields=("params.recordRep.fields",),
                 prefix={"params.recordRep.id": key}, **aura),
        ]
    return rules


def _plain(fields: dict[str, Any]) -> dict[str, Any]:
    """RecordGvp's {F: {value}} as {F: v}."""
    return {k: (v.get("value") if isinstance(v, dict) else v) for k, v in fields.items()}


def saved_record(body: Any) -> tuple[str, dict[str, Any]] | None:
    """(shape, {field: value}) of a caught record save (the first save action of an Aura batch), or None when the
    body is none of the shapes."""
    actions = lookup(body, ACTIONS)
    for action in actions if isinstance(actions, list) else []:
        params = action.get("params") if isinstance(action, dict) else None
        if not isinstance(params, dict):
            continue
        inp, rep = params.get("recordInput"), params.get("recordRep")
        if isinstance(inp, dict) and isinstance(inp.get("fields"), dict):
            update = "recordId" in params or not inp.get("apiName")  # a create always names its object
            return ("aura-updateRecord" if update else "aura-createRecord"), dict(inp["fields"])
        if isinstance(rep, dict) and isinstance(rep.get("fields"), dict):
            return "aura-saveRecord", _plain(rep["fields"])
    if isinstance(body, dict) and isinstance(body.get("fields"), dict) and set(body) <= UI_API_KEYS and (
            body.get("apiName") is None or isinstance(body["apiName"], str)):
        return "ui-api", dict(body["fields"])
    return None


def record_value(body: Any, field: str) -> Any:
    """A record field (`FirstName`) of a caught save, from whichever shape it has; MISSING when absent."""
    found = saved_record(body)
    if found is None or field not in found[1]:
        return MISSING
    return found[1][field]


def org_specific(field: str, *values: Any) -> str | None:
    """Why a record field differs between two correct runs on different orgs (or after a reset recreated a seeded
    record): an id field (`Id`, `AccountId`, `Custom__c` lookups hold ids too, but only `…Id` names are assumed)
    holding Salesforce record ids (15/18 characters). Linkage is checked by the state judge instead."""
    if (field == "Id" or field.endswith("Id")) and values and all(
            isinstance(v, str) and RECORD_ID.fullmatch(v) and any(c.isdigit() for c in v) for v in values):
        return "a Salesforce record id (differs per org; check linkage with environment.checks)"
    return None
