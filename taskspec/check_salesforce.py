"""The options of `environment: {kind: salesforce-scratch, …}` (read by clawrec/environments/salesforce.py).

Why a module of its own: the options are a small schema (pool, login path, API version, org creation, seed
records, tracked sObjects, state checks) checked with the spec checker's one-line problems, kept apart from the
general format. The `intercept: [{salesforce: {save: Lead}}]` helper is checked here and expanded by
taskspec/salesforce_save.py.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from taskspec.check import FieldChecker, kind
from taskspec.model import Rule
from taskspec.salesforce_save import save_rules
from taskspec.yaml_source import FieldPath

SF_KEYS = ("pool", "path", "api_version", "definition", "dev_hub", "days", "wait_min", "seed", "track", "checks")
CHECK_KEYS = ("name", "soql", "count", "fields")
SAVE_KEYS = ("save",)
SOQL_START = re.compile(r"\s*SELECT\s", re.I)
SF_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")          # sObject and field API names (Lead, Custom__c)
SF_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")    # pool names, referenceIds


def check_salesforce_options(c: FieldChecker, options: dict, path: FieldPath) -> None:
    """Problems go to `c` (FILE:LINE: environment.KEY: message); unknown keys and wrong types included."""
    c.mapping(options, path, known=SF_KEYS)
    strings = {k: c.string(options[k], path + (k,)) for k in ("pool", "dev_hub", "definition") if k in options}
    if strings.get("pool") and not SF_TOKEN.fullmatch(strings["pool"]):
        c.bad(path + ("pool",), f"'{strings['pool']}' must be letters, digits, '.', '_' or '-'")
    if isinstance(options.get("definition"), str) and Path(options["definition"]).is_absolute():
        c.bad(path + ("definition",), "must be a path relative to the spec's folder")
    if "path" in options and c.string(options["path"], path + ("path",)) is not None \
            and not options["path"].startswith("/"):
        c.bad(path + ("path",), f"must start with '/' (a path on the org, e.g. /lightning/o/Lead/new), "
                                f"got '{options['path']}'")
    version = options.get("api_version")
    if version is not None and not re.fullmatch(r"[1-9][0-9]\.0", str(version)):
        c.bad(path + ("api_version",), f"must be a REST API version like '62.0', got {version!r}")
    days = options.get("days")
    if days is not None and (not isinstance(days, int) or isinstance(days, bool) or not 1 <= days <= 30):
        c.bad(path + ("days",), f"must be a whole number of days 1-30, got {days!r}")
    if "wait_min" in options:
        wait = c.number(options["wait_min"], path + ("wait_min",), True)
        if isinstance(wait, int) and wait < 2:
            c.bad(path + ("wait_min",), f"must be at least 2 (sf org create scratch --wait), got {wait}")
    for key in ("days", "dev_hub", "wait_min"):
        if key in options and "definition" not in options:
            c.bad(path + (key,), "only used to create orgs: needs 'definition' (a scratch org definition file)")
    if "track" in options:
        for i, name in enumerate(c.strings(options["track"], path + ("track",))):
            if not SF_NAME.fullmatch(name):
                c.bad(path + ("track", i), f"'{name}' is not an sObject API name")
    seed = options.get("seed")
    if isinstance(seed, str):
        c.string(seed, path + ("seed",))  # a `sf data import tree` plan file, read at run time
    elif seed is not None:
        check_salesforce_seed(c, seed, path + ("seed",))
    if "checks" in options:
        refs = {r["attributes"].get("referenceId") for r in seed if isinstance(r, dict)
                and isinstance(r.get("attributes"), dict)} if isinstance(seed, list) else None
        check_salesforce_checks(c, options["checks"], path + ("checks",), refs)


def check_salesforce_checks(c: FieldChecker, checks: Any, path: FieldPath, refs: set | None) -> None:
    """State checks run before the reset: {soql: SELECT …, count?: N, fields?: {F: value}, name?}; "@ref" values
    (and '@ref' literals in the SOQL) name seeded records (checked when the seed is inline)."""
    if not isinstance(checks, list):
        c.bad(path, f"must be a list of {{soql, count?, fields?}}, got {kind(checks)}")
        return
    for i, check in enumerate(checks):
        where = path + (i,)
        if c.mapping(check, where, known=CHECK_KEYS, required=("soql",)) is None:
            continue
        soql = c.string(check["soql"], where + ("soql",)) if "soql" in check else None
        if soql is not None and not SOQL_START.match(soql):
            c.bad(where + ("soql",), "must be a SOQL query (SELECT …)")
        if "name" in check:
            c.string(check["name"], where + ("name",))
        count = check.get("count")
        if "count" in check and (not isinstance(count, int) or isinstance(count, bool) or count < 0):
            c.bad(where + ("count",), f"must be a whole number >= 0, got {count!r}")
        fields = c.mapping(check["fields"], where + ("fields",)) if "fields" in check else None
        if "count" not in check and "fields" not in check:
            c.bad(where, "needs 'count' (expected number of rows) or 'fields' (expected values), or both")
        if fields and soql and re.search(r"COUNT\(\s*\)", soql, re.I):
            c.bad(where + ("fields",), "a SELECT COUNT() query returns no rows to compare fields with")
        for name, value in (fields or {}).items():
            if not isinstance(name, str) or not SF_NAME.fullmatch(name):
                c.bad(where + ("fields", str(name)), "not a field API name")
            elif isinstance(value, (dict, list)):
                c.bad(where + ("fields", name), f"must be a string, number, boolean or null, got {kind(value)}")
            elif refs is not None and isinstance(value, str) and value.startswith("@") and value[1:] not in refs:
                c.bad(where + ("fields", name), f"'{value}' names no seeded record's referenceId")
        for ref in re.findall(r"'@([^']*)'", soql or ""):
            if refs is not None and ref not in refs:
                c.bad(where + ("soql",), f"'@{ref}' names no seeded record's referenceId")


def check_salesforce_rule(c: FieldChecker, item: dict, index: int) -> list[Rule]:
    """`{salesforce: {save: Lead | [Lead, …]}, respond?: …}` → the save rules of each object (every shape)."""
    path: FieldPath = ("intercept", index)
    c.mapping(item, path, known=("salesforce", "respond"))
    helper = c.mapping(item["salesforce"], path + ("salesforce",), known=SAVE_KEYS, required=SAVE_KEYS) or {}
    names = helper.get("save")
    names = [names] if isinstance(names, str) else names
    if "save" in helper and (not isinstance(names, list) or not names):
        c.bad(path + ("salesforce", "save"), f"must be an sObject API name or a list of them, got {kind(names)}")
        return []
    start = len(c.problems)
    for i, name in enumerate(names or []):
        if not isinstance(name, str) or not SF_NAME.fullmatch(name):
            c.bad(path + ("salesforce", "save") + ((i,) if len(names) > 1 else ()),
                  f"must be an sObject API name (Lead, Custom__c), got {name!r}")
    respond = c.check_respond(item["respond"], path + ("respond",), False) if "respond" in item else None
    if len(c.problems) > start:
        return []
    return [r for name in names or [] for r in save_rules(name, index, respond)]


def check_salesforce_seed(c: FieldChecker, seed: Any, path: FieldPath) -> None:
    """Records as in `sf data import tree`: attributes{type, referenceId}, scalar fields, "@ref" lookups to an
    earlier record."""
    if not isinstance(seed, list):
        c.bad(path, f"must be a plan file path or a list of records, got {kind(seed)}")
        return
    refs: set[str] = set()
    for i, record in enumerate(seed):
        where = path + (i,)
        if c.mapping(record, where, required=("attributes",)) is None:
            continue
        attrs = c.mapping(record.get("attributes", {}), where + ("attributes",), known=("type", "referenceId"),
                          required=("type", "referenceId")) or {}
        typ, ref = attrs.get("type"), attrs.get("referenceId")
        if "type" in attrs and (not isinstance(typ, str) or not SF_NAME.fullmatch(typ)):
            c.bad(where + ("attributes", "type"), f"must be an sObject API name, got {typ!r}")
        if "referenceId" in attrs:
            if not isinstance(ref, str) or not SF_TOKEN.fullmatch(ref):
                c.bad(where + ("attributes", "referenceId"), f"must be letters, digits, '.', '_' or '-', "
                                                             f"got {ref!r}")
            elif ref in refs:
                c.bad(where + ("attributes", "referenceId"), f"duplicate referenceId '{ref}'")
        for field_name, value in record.items():
            if field_name == "attributes" or not isinstance(field_name, str):
                continue
            if not SF_NAME.fullmatch(field_name):
                c.bad(where + (field_name,), "not a field API name")
            elif isinstance(value, (dict, list)):
                c.bad(where + (field_name,), f"must be a string, number, boolean or null, got {kind(value)}"
                                             " (child records: flat records with \"@referenceId\" lookups)")
            elif isinstance(value, str) and value.startswith("@") and value[1:] not in refs:
                c.bad(where + (field_name,), f"'{value}' names no earlier record's referenceId")
        if isinstance(ref, str):
            refs.add(ref)
