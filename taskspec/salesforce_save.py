"""`intercept: [{salesforce: {save: Lead}}]`: the rules that catch a record save of one sObject, in every shape
Lightning sends it, and the record's fields read back from whichever shape was caught.

Why a helper: real Lightning saves through form-encoded Aura actions (`/aura?r=N&…`, the action list JSON in the
`message` field), and which action depends on the page and the release; newer pages use the UI API. Task authors
should name the object, not write Aura paths by hand, and `expect` should name record fields (`FirstName`), so one
spec fits every shape. Shapes (public captures of Lightning; tests/support/salesforce_lightning.py speaks them):
- Aura createRecord: `message.actions.*.params.recordInput` = {apiName, fields{F: v}}
- Aura RecordGvp saveRecord: `message.actions.*.params.recordRep` = {id?, apiName, fields{F: {value}}} (new record
  or edit)
- UI API: POST `/services/data/vNN.0/ui-api/records` {apiName, fields{F: v}}; PATCH `…/ui-api/records/ID` {fields}
  (the object is known only from the id's key prefix: standard objects in KEY_PREFIXES)
Rules match on the object only (no Aura descriptor): an unknown descriptor spelling must not let a save through.
"""

from __future__ import annotations

import re
from typing import Any

from taskspec.fieldpath import MISSING, lookup
from taskspec.model import Respond, Rule

AURA_URL = "**/aura"
UI_API_URL = "**/services/data/*/ui-api/records"
CREATE_PATH = "message.actions.*.params.recordInput"
SAVE_PATH = "message.actions.*.params.recordRep"
KEY_PREFIXES = {"Account": "001", "Contact": "003", "Lead": "00Q", "Opportunity": "006", "Case": "500",
                "Task": "00T", "Event": "00U", "Campaign": "701"}
SHAPES = ("aura-createRecord", "aura-saveRecord", "ui-api")
RECORD_ID = re.compile(r"[a-zA-Z0-9]{15}(?:[a-zA-Z0-9]{3})?")


def save_rules(sobject: str, index: int, respond: Respond | None = None) -> list[Rule]:
    """The rules for saves of `sobject` (indexes from `index` on, renumbered by the caller)."""
    respond = respond or Respond()
    rules = [
        Rule(index=index, url=AURA_URL, methods=("POST",), equals={f"{CREATE_PATH}.apiName": sobject},
             respond=respond),
        Rule(index=index + 1, url=AURA_URL, methods=("POST",), equals={f"{SAVE_PATH}.apiName": sobject},
             respond=respond),
        Rule(index=index + 2, url=UI_API_URL, methods=("POST",), equals={"apiName": sobject}, respond=respond),
    ]
    if sobject in KEY_PREFIXES:
        rules.append(Rule(index=index + 3, url=f"{UI_API_URL}/{KEY_PREFIXES[sobject]}*", methods=("PATCH",),
                          respond=respond))
    return rules


def _first_record(body: Any, path: str) -> dict[str, Any] | None:
    found = lookup(body, path)
    for rec in found if isinstance(found, list) else []:
        if isinstance(rec, dict) and isinstance(rec.get("fields"), dict):
            return rec
    return None


def saved_record(body: Any) -> tuple[str, dict[str, Any]] | None:
    """(shape, {field: value}) of a caught record save, or None when the body is none of the shapes."""
    rec = _first_record(body, CREATE_PATH)
    if rec is not None:
        return "aura-createRecord", dict(rec["fields"])
    rec = _first_record(body, SAVE_PATH)
    if rec is not None:
        return "aura-saveRecord", {k: (v.get("value") if isinstance(v, dict) else v)
                                   for k, v in rec["fields"].items()}
    if isinstance(body, dict) and isinstance(body.get("fields"), dict) and (
            isinstance(body.get("apiName"), str) or set(body) == {"fields"}):
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
