"""What the org holds at the end of a run, read BEFORE the reset: the spec's state checks and the record-level delta.

Why here and not in the judge: the judge runs offline, after the org was reset and released (SDRBench judges by
state deltas; clawrec's reset would erase them). So the environment runs the spec's `checks` (SOQL predicates) and
diffs the tracked sObjects against the checkpoint while the run's records still exist, and writes both to
`environment.json` in the run directory; `clawrec judge --judge state` (evaluator/state_judge.py) reads that file.

environment.json:
    {"version": 1, "org": …, "checkpoint": "…Z", "seeded": {referenceId: id},
     "checks": [{"name", "soql", "expect": {"count"?, "fields"?}, "result": {"count", "records"}, "error"?}],
     "delta": {sObject: {"created": [{"id", "fields"}], "updated": [{"id", "ref"?, "changed": {F: {"before",
               "after"}} | null}], "deleted": [{"id", "ref"}]}},
     "errors": [...]}
`@referenceId` in a check's expected field values is replaced by the seeded record's id before the file is written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from clawrec.environments import EnvironmentFailed
from clawrec.environments.sf_rest import SalesforceRest
from clawrec.environments.sf_state import Checkpoint, SeedPlan, existing, same_value
from rundir.records import ENVIRONMENT

ENVIRONMENT_FILE = ENVIRONMENT  # RUN/environment.json
FORMAT_VERSION = 1
SYSTEM_FIELDS = {"attributes", "CreatedDate", "CreatedById", "LastModifiedDate", "LastModifiedById",
                 "SystemModstamp", "LastViewedDate", "LastReferencedDate", "IsDeleted", "OwnerId",
                 "LastActivityDate", "PhotoUrl", "JigsawContactId", "CleanStatus"}
FIELDS_ALL_LIMIT = 200  # FIELDS(ALL) queries must have LIMIT <= 200 (SOQL)


def resolve_refs(value: Any, ids: dict[str, str]) -> Any:
    """"@referenceId" strings → the seeded record's id (an unknown reference stays as written)."""
    if isinstance(value, str) and value.startswith("@") and value[1:] in ids:
        return ids[value[1:]]
    if isinstance(value, dict):
        return {k: resolve_refs(v, ids) for k, v in value.items()}
    return value


def _plain(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != "attributes"}


async def run_checks(rest: SalesforceRest, checks: list[dict[str, Any]], ids: dict[str, str]) -> list[dict[str, Any]]:
    """Each check's query and result; a query the org refuses or answers with something else than a query result
    is kept with its error (the state judge is then inconclusive)."""
    out = []
    for i, check in enumerate(checks):
        soql = str(resolve_refs(check["soql"], ids))
        for ref, rid in ids.items():
            soql = soql.replace(f"'@{ref}'", f"'{rid}'")
        expect = {k: resolve_refs(check[k], ids) for k in ("count", "fields") if k in check}
        entry: dict[str, Any] = {"name": str(check.get("name") or f"checks[{i}]"), "soql": soql, "expect": expect}
        try:
            total, records = await rest.query_all(soql)
            entry["result"] = {"count": total, "records": [_plain(r) for r in records]}
        except EnvironmentFailed as exc:  # unreachable, refused, or a malformed answer: the judge is inconclusive
            entry["error"] = str(exc)
        out.append(entry)
    return out


async def record_delta(rest: SalesforceRest, plan: SeedPlan, track: list[str], ckpt: Checkpoint) -> dict[str, Any]:
    """Per tracked sObject: records created since the checkpoint (their non-empty fields), seeded records changed
    (field: before → after) or deleted, and other records modified since the checkpoint (prior values unknown)."""
    seeded_by_id = {rid: ref for ref, rid in ckpt.ids.items()}
    delta: dict[str, Any] = {}
    for sobject in dict.fromkeys(track + plan.types):
        entry: dict[str, list[dict[str, Any]]] = {"created": [], "updated": [], "deleted": []}
        created = await rest.query(f"SELECT FIELDS(ALL) FROM {sobject} WHERE CreatedDate >= {ckpt.time} "
                                   f"LIMIT {FIELDS_ALL_LIMIT}")
        for rec in created:
            if rec.get("Id") in seeded_by_id:
                continue
            entry["created"].append({"id": rec.get("Id"), "fields": {
                k: v for k, v in rec.items() if k not in SYSTEM_FIELDS and k != "Id" and v not in (None, "", [])}})
        records = [r for r in plan.records if r["attributes"]["type"] == sobject]
        if records:
            wanted = {ckpt.ids[r["attributes"]["referenceId"]]: plan.values(r, ckpt.ids) for r in records
                      if r["attributes"]["referenceId"] in ckpt.ids}
            names = sorted({k for w in wanted.values() for k in w})
            now = await existing(rest, sobject, list(wanted), names)
            for rid, want in wanted.items():
                if rid not in now:
                    entry["deleted"].append({"id": rid, "ref": seeded_by_id[rid]})
                    continue
                changed = {k: {"before": v, "after": now[rid].get(k)} for k, v in want.items()
                           if not same_value(now[rid].get(k), v)}
                if changed:
                    entry["updated"].append({"id": rid, "ref": seeded_by_id[rid], "changed": changed})
        touched = await rest.query(f"SELECT Id FROM {sobject} WHERE LastModifiedDate >= {ckpt.time} "
                                   f"AND CreatedDate < {ckpt.time}")
        entry["updated"] += [{"id": r["Id"], "changed": None} for r in touched if r["Id"] not in seeded_by_id]
        if any(entry.values()):
            delta[sobject] = entry
    return delta


def write_environment(run_dir: Path, doc: dict[str, Any]) -> Path:
    path = Path(run_dir) / ENVIRONMENT_FILE
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps({"version": FORMAT_VERSION, **doc}, indent=2, ensure_ascii=False, default=str) + "\n",
                   encoding="utf-8")
    tmp.replace(path)
    return path
