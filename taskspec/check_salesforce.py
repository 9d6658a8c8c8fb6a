"""The options of `environment: {kind: salesforce-scratch, …}` (read by clawrec/environments/salesforce.py).

Why a module of its own: the options are a small schema (pool, login path, API version, org creation, seed
records, tracked sObjects) checked with the spec checker's one-line problems, kept apart from the general format.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from taskspec.check import FieldChecker, kind
from taskspec.yaml_source import FieldPath

SF_KEYS = ("pool", "path", "api_version", "definition", "dev_hub", "days", "wait_min", "seed", "track")
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
        c.number(options["wait_min"], path + ("wait_min",), True)
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
