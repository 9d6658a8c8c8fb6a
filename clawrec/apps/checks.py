"""An app's state checks, read from the instance's own files while it runs: SQL on its database, its outgoing mail,
its uploads. The Salesforce checks' twin (clawrec/environments/sf_checks.py): each check becomes a record
{name, kind: sql|mail|files, query, expect: {count?, fields?}, result: {count, records}} or {…, error} (`query`:
the SQL, or the mail/files selection in one line), which the state judge (evaluator/state_judge.py) reads as it
reads SOQL checks; the same records serve the `at_catch` read (clawrec/environments/README.md).

- `{sql: "SELECT …", count?: N, fields?: {column: value}}`: read-only on the app's SQLite database (or, when the
  manifest's database is a PostgreSQL cluster's PG_VERSION file, through psql on the running cluster: `_pg_sql`). A query whose
  select list starts with COUNT( counts as its single number (`SELECT COUNT(*) FROM order_order` → count N, no
  rows); any other query's count is its number of rows, each row a {column: value} record.
- `{mail: {to?, subject?, body?}, count?, fields?}`: the messages the app sent (one .eml file each), those whose
  To contains `to`, Subject contains `subject` and text contains `body` (case-insensitive); records {from, to,
  subject, body}.
- `{files: "GLOB", count?}`: the app's uploads matching the glob (relative to its upload folder); records
  {path, size}.
"""

from __future__ import annotations

import csv
import email
import email.policy
import io
import os
import re
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

COUNT_QUERY = re.compile(r"\s*SELECT\s+COUNT\s*\(", re.I)
MAX_ROWS = 200


def _sql(database: Path, sql: str) -> dict[str, Any]:
    con = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=20)
    try:
        con.row_factory = sqlite3.Row
        rows = con.execute(sql).fetchmany(MAX_ROWS + 1)
    finally:
        con.close()
    if COUNT_QUERY.match(sql) and len(rows) == 1 and len(rows[0].keys()) == 1:
        return {"count": int(rows[0][0] or 0), "records": []}
    return {"count": len(rows), "records": [dict(r) for r in rows[:MAX_ROWS]]}


def _pg_sql(cluster: Path, sql: str) -> dict[str, Any]:
    """The query in a read-only transaction on the instance's running cluster (misago): its port is line 4 of
    postmaster.pid, the user and database are named in the cluster's clawrec-db file (written by the app's setup)."""
    port = (cluster / "postmaster.pid").read_text().splitlines()[3].strip()
    name = (cluster / "clawrec-db").read_text().strip()
    env = {**os.environ, "PGOPTIONS": "-c default_transaction_read_only=on"}
    done = subprocess.run(["psql", "-X", "-q", "--csv", "-h", "127.0.0.1", "-p", port, "-U", name, "-d", name,
                           "-v", "ON_ERROR_STOP=1", "-c", sql], capture_output=True, text=True, env=env, timeout=30)
    if done.returncode:
        raise ValueError(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"psql exit {done.returncode}")
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    if COUNT_QUERY.match(sql) and len(rows) == 1 and len(rows[0]) == 1:
        return {"count": int(next(iter(rows[0].values())) or 0), "records": []}
    return {"count": len(rows), "records": rows[:MAX_ROWS]}


def read_mail(folder: Path) -> list[dict[str, Any]]:
    out = []
    for path in sorted(folder.glob("*.eml")) if folder.is_dir() else []:
        msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        part = msg.get_body(preferencelist=("plain", "html")) if msg.is_multipart() else msg
        body = part.get_content() if part is not None else ""
        out.append({"from": str(msg["From"] or ""), "to": str(msg["To"] or ""), "subject": str(msg["Subject"] or ""),
                    "body": body, "file": path.name})
    return out


def _mail(folder: Path, want: dict[str, Any]) -> dict[str, Any]:
    def fits(m: dict[str, Any]) -> bool:
        return all(str(want[k]).lower() in str(m[k]).lower() for k in ("to", "subject", "body") if k in want)

    found = [m for m in read_mail(folder) if fits(m)]
    return {"count": len(found), "records": found[:MAX_ROWS]}


def _files(folder: Path, pattern: str) -> dict[str, Any]:
    found = sorted(p for p in folder.glob(pattern) if p.is_file()) if folder.is_dir() else []
    return {"count": len(found), "records": [{"path": str(p.relative_to(folder)), "size": p.stat().st_size}
                                             for p in found[:MAX_ROWS]]}


def check_label(check: dict[str, Any]) -> str:
    """What a check reads, as one line (the state judge's condition)."""
    for key in ("sql", "soql", "files"):
        if key in check:
            return str(check[key])
    if "mail" in check:
        return "mail " + ", ".join(f"{k} ~ {v!r}" for k, v in sorted(dict(check["mail"]).items()))
    return "?"


def run_checks(checks: list[dict[str, Any]], data: Path, database: str, mail: str | None,
               uploads: str | None) -> list[dict[str, Any]]:
    """Each check with its result (or its error: the judge is then inconclusive), in the spec's order."""
    out = []
    for i, check in enumerate(checks):
        kind = next(k for k in ("sql", "mail", "files") if k in check)
        entry: dict[str, Any] = {"name": str(check.get("name") or f"checks[{i}]"), "kind": kind,
                                 "query": check_label(check),
                                 "expect": {k: check[k] for k in ("count", "fields") if k in check}}
        try:
            if kind == "sql":
                db = data / database
                entry["result"] = (_pg_sql(db.parent, str(check["sql"])) if db.name == "PG_VERSION"
                                   else _sql(db, str(check["sql"])))
            elif kind == "mail":
                entry["result"] = _mail(data / (mail or "mail"), dict(check["mail"] or {}))
            else:
                entry["result"] = _files(data / (uploads or "media"), str(check["files"]))
        except (sqlite3.Error, OSError, ValueError, subprocess.SubprocessError) as exc:
            entry["error"] = f"{kind}: {exc}"
        out.append(entry)
    return out
