"""The options of `environment: {kind: app, app: NAME, checks: [...]}` (read by clawrec/environments/app.py).

Why here: the checks are a small schema checked with the spec checker's one-line problems, like the Salesforce
options (taskspec/check_salesforce.py). Whether NAME is an app of the corpus is known only where the corpus is
(apps/): the run says so in one line when it is not.
"""

from __future__ import annotations

import re
from typing import Any

from taskspec.check import FieldChecker, kind
from taskspec.yaml_source import FieldPath

APP_KEYS = ("app", "checks")
CHECK_KEYS = ("name", "sql", "mail", "files", "count", "fields")
MAIL_KEYS = ("to", "subject", "body")
APP_NAME = re.compile(r"[a-z][a-z0-9_-]*")
SELECT = re.compile(r"\s*(SELECT|WITH)\s", re.I)


def check_app_options(c: FieldChecker, options: dict, path: FieldPath) -> None:
    """Problems go to `c` (FILE:LINE: environment.KEY: message)."""
    c.mapping(options, path, known=APP_KEYS, required=("app",))
    name = c.string(options["app"], path + ("app",)) if "app" in options else None
    if name is not None and not APP_NAME.fullmatch(name):
        c.bad(path + ("app",), f"'{name}' is not an app name (lower-case letters, digits, '-', '_')")
    checks = options.get("checks", [])
    if not isinstance(checks, list):
        c.bad(path + ("checks",), f"must be a list of {{sql|mail|files, count?, fields?}}, got {kind(checks)}")
        return
    for i, check in enumerate(checks):
        where = path + ("checks", i)
        if c.mapping(check, where, known=CHECK_KEYS) is None:
            continue
        kinds = [k for k in ("sql", "mail", "files") if k in check]
        if len(kinds) != 1:
            c.bad(where, "needs exactly one of 'sql' (a query on the app's database), 'mail' (its outgoing mail) "
                         "or 'files' (a glob over its uploads)")
            continue
        if "sql" in check:
            sql = c.string(check["sql"], where + ("sql",))
            if sql is not None and not SELECT.match(sql):
                c.bad(where + ("sql",), "must be a read-only query (SELECT … or WITH …)")
        elif "mail" in check:
            c.mapping(check["mail"] if check["mail"] is not None else {}, where + ("mail",), known=MAIL_KEYS)
        else:
            c.string(check["files"], where + ("files",))
        if "name" in check:
            c.string(check["name"], where + ("name",))
        count = check.get("count")
        if "count" in check and (not isinstance(count, int) or isinstance(count, bool) or count < 0):
            c.bad(where + ("count",), f"must be a whole number >= 0, got {count!r}")
        if "count" not in check and "fields" not in check:
            c.bad(where, "needs 'count' (expected number) or 'fields' (expected values), or both")
        fields = c.mapping(check["fields"], where + ("fields",)) if "fields" in check else None
        for key, value in (fields or {}).items():
            if isinstance(value, (dict, list)):
                c.bad(where + ("fields", str(key)), f"must be a string, number, boolean or null, got {kind(value)}")
