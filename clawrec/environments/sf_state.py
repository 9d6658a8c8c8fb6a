"""Seed an org, take a checkpoint, reset it back: the state side of a scratch-org run.

Why this reset: recreating a scratch org takes minutes and counts against the Dev Hub's daily limit, so a leased
org is reused. The seeded state is defined by the spec's seed plan (records as in `sf data import tree`:
`attributes{type, referenceId}`, lookups `"@referenceId"`); the reset deletes every record of the tracked sObjects
created since the checkpoint (the org's own clock; a record already gone by a parent's cascade counts as deleted),
PATCHes seeded records back to the plan's values and
recreates seeded records the run deleted (SCUBA's and SDRBench's targeted resets). Records that existed before
the seed and were changed by the run are out of its reach: track only objects the task owns.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any

from clawrec.environments import EnvironmentFailed
from clawrec.environments.sf_rest import SalesforceRest


@dataclass
class SeedPlan:
    records: list[dict[str, Any]]

    @property
    def hash(self) -> str:
        return hashlib.sha256(json.dumps(self.records, sort_keys=True).encode()).hexdigest()[:16]

    @property
    def types(self) -> list[str]:
        return list(dict.fromkeys(r["attributes"]["type"] for r in self.records))

    def values(self, record: dict[str, Any], ids: dict[str, str]) -> dict[str, Any]:
        """The record's fields with "@ref" lookups resolved to ids."""
        out = {}
        for key, value in record.items():
            if key == "attributes":
                continue
            if isinstance(value, str) and value.startswith("@"):
                if value[1:] not in ids:
                    raise EnvironmentFailed(f"salesforce-scratch: seed: {value} names no earlier referenceId")
                value = ids[value[1:]]
            out[key] = value
        return out


@dataclass
class Checkpoint:
    time: str                                           # SOQL datetime literal, the org's clock
    ids: dict[str, str] = field(default_factory=dict)   # referenceId → record id


def soql_time(http_date: str | None) -> str:
    if not http_date:
        raise EnvironmentFailed("salesforce-scratch: the org's answer had no Date header (no checkpoint time)")
    return parsedate_to_datetime(http_date).strftime("%Y-%m-%dT%H:%M:%SZ")


def _ids_in(ids: list[str]) -> str:
    return "(" + ",".join("'" + i.replace("'", "") + "'" for i in ids) + ")"


async def existing(rest: SalesforceRest, sobject: str, ids: list[str], fields: list[str]) -> dict[str, dict]:
    if not ids:
        return {}
    cols = ", ".join(["Id"] + [f for f in fields if f != "Id"])
    rows = await rest.query(f"SELECT {cols} FROM {sobject} WHERE Id IN {_ids_in(ids)}")
    return {r["Id"]: r for r in rows}


async def ensure_seeded(rest: SalesforceRest, plan: SeedPlan, known: dict[str, str]) -> tuple[dict[str, str], int]:
    """Ids of every seeded record, creating those missing (first lease: all); returns (ids, how many created)."""
    ids: dict[str, str] = {}
    for sobject in plan.types:
        refs = [r["attributes"]["referenceId"] for r in plan.records if r["attributes"]["type"] == sobject]
        found = await existing(rest, sobject, [known[r] for r in refs if r in known], [])
        ids.update({r: known[r] for r in refs if r in known and known[r] in found})
    created = 0
    for record in plan.records:
        ref = record["attributes"]["referenceId"]
        if ref not in ids:
            ids[ref] = await rest.create(record["attributes"]["type"], plan.values(record, ids))
            created += 1
    return ids, created


def same_value(current: Any, wanted: Any) -> bool:
    if isinstance(wanted, (int, float)) and not isinstance(wanted, bool) and isinstance(current, (int, float)):
        return float(current) == float(wanted)
    return current == wanted


async def reset(rest: SalesforceRest, plan: SeedPlan, track: list[str], ckpt: Checkpoint) -> dict[str, Any]:
    """Back to the seeded state; returns counts and the (possibly new) seeded ids."""
    seeded = set(ckpt.ids.values())
    doomed: list[str] = []
    for sobject in dict.fromkeys(track + plan.types):
        rows = await rest.query(f"SELECT Id FROM {sobject} WHERE CreatedDate >= {ckpt.time}")
        doomed += [r["Id"] for r in rows if r["Id"] not in seeded]
    results = await rest.delete_many(doomed) if doomed else []
    # A child deleted by an earlier parent's cascade in the same call (Account → Contacts, Lead → Tasks) comes back
    # ENTITY_IS_DELETED: it is gone, which is what the reset wants.
    failed = [r for r in results if not r.get("success") and not all(
        e.get("statusCode") == "ENTITY_IS_DELETED" for e in r.get("errors") or [{}])]
    if failed:
        errs = failed[0].get("errors") or [{}]
        raise EnvironmentFailed(f"salesforce-scratch: reset: {len(failed)} of {len(doomed)} deletions failed "
                                f"({errs[0].get('statusCode', '')}: {errs[0].get('message', '')})")
    ids = dict(ckpt.ids)
    restored = recreated = 0
    for record in plan.records:  # plan order: parents before the children that look them up
        sobject, ref = record["attributes"]["type"], record["attributes"]["referenceId"]
        wanted = plan.values(record, ids)
        current = (await existing(rest, sobject, [ids[ref]], list(wanted))).get(ids[ref])
        if current is None:
            ids[ref] = await rest.create(sobject, wanted)
            recreated += 1
            continue
        diff = {k: v for k, v in wanted.items() if not same_value(current.get(k), v)}
        if diff:
            await rest.update(sobject, ids[ref], diff)
            restored += 1
    return {"deleted": len(doomed), "restored": restored, "recreated": recreated, "ids": ids}
