"""A pool of already-created scratch orgs in one JSON file, leased with atomic claims.

Why a file lock: some pool tools read "Available", then write "Assigned" without a lock, so two runners can take
one org. Here every read-modify-write of the pool file holds an exclusive `fcntl.flock` on `<file>.lock` and the
file is replaced atomically (temp + rename), so a claim is all-or-nothing and two claims never return one org.
A lease whose holder process is gone (same host, pid dead) is free again.

File (`$CLAWREC_SF_POOL`, default ~/.clawrec/salesforce-pool.json):
    {"orgs": [{"username": "test-abc@example.com", "alias": "pool1", "pool": "default",
               "lease": null | {"holder": "...", "host": "...", "pid": 123, "since": "...Z", "run": "..."},
               "seed": {"hash": "...", "ids": {"referenceId": "001..."}},   # written by clawrec
               "dirty": "why"}]}                                               # a failed reset: never leased again
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterator

from clawrec.environments import EnvironmentFailed

POOL_ENV = "CLAWREC_SF_POOL"


def pool_path() -> Path:
    return Path(os.environ.get(POOL_ENV) or Path.home() / ".clawrec" / "salesforce-pool.json").expanduser()


def _alive(lease: dict[str, Any]) -> bool:
    if lease.get("host") != socket.gethostname() or not isinstance(lease.get("pid"), int):
        return True  # another machine's lease: trust it
    try:
        os.kill(lease["pid"], 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class OrgPool:
    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path else pool_path()

    @contextlib.contextmanager
    def _locked(self) -> Iterator[dict[str, Any]]:
        """The pool document under an exclusive lock; changes to it are written back atomically."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(f"{self.path}.lock", "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                doc = self._read()
                before = json.dumps(doc, sort_keys=True)
                yield doc
                if json.dumps(doc, sort_keys=True) != before:
                    self._write(doc)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _read(self) -> dict[str, Any]:
        if not self.path.exists():
            return {"orgs": []}
        try:
            doc = json.loads(self.path.read_text(encoding="utf-8") or "{}")
        except ValueError as exc:
            raise EnvironmentFailed(f"{self.path}: not JSON ({exc})") from None
        if not isinstance(doc, dict) or not isinstance(doc.setdefault("orgs", []), list) or not all(
                isinstance(o, dict) and isinstance(o.get("username"), str) for o in doc["orgs"]):
            raise EnvironmentFailed(f"{self.path}: orgs: must be a list of {{username, alias?, pool?}} objects")
        return doc

    def _write(self, doc: dict[str, Any]) -> None:
        fd, tmp = tempfile.mkstemp(prefix=".pool-", dir=self.path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, indent=2)
            fh.write("\n")
        os.replace(tmp, self.path)

    @staticmethod
    def new_lease(run: str) -> dict[str, Any]:
        return {"holder": f"{socket.gethostname()}:{os.getpid()}:{run}", "host": socket.gethostname(),
                "pid": os.getpid(), "run": run, "since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}

    def claim(self, pool: str, run: str) -> dict[str, Any] | None:
        """Atomically lease the first free, clean org of `pool`; None when there is none."""
        with self._locked() as doc:
            for org in doc["orgs"]:
                if org.get("pool", "default") != pool or org.get("dirty"):
                    continue
                lease = org.get("lease")
                if lease and _alive(lease):
                    continue
                org["lease"] = self.new_lease(run)
                return dict(org)
        return None

    def add_leased(self, org: dict[str, Any], run: str) -> dict[str, Any]:
        """Add a newly created org, already leased to this run."""
        with self._locked() as doc:
            entry = {**org, "lease": self.new_lease(run)}
            doc["orgs"].append(entry)
            return dict(entry)

    def update(self, username: str, holder: str, change: Callable[[dict[str, Any]], None]) -> None:
        """Apply `change` to our leased org entry (a lease we no longer hold is left alone)."""
        with self._locked() as doc:
            for org in doc["orgs"]:
                if org["username"] == username and (org.get("lease") or {}).get("holder") == holder:
                    change(org)

    def release(self, username: str, holder: str, dirty: str | None = None) -> None:
        def free(org: dict[str, Any]) -> None:
            org["lease"] = None
            if dirty:
                org["dirty"] = dirty
        self.update(username, holder, free)

    def summary(self, pool: str) -> str:
        with self._locked() as doc:
            orgs = [o for o in doc["orgs"] if o.get("pool", "default") == pool]
        leased = sum(1 for o in orgs if o.get("lease"))
        dirty = sum(1 for o in orgs if o.get("dirty"))
        return f"{len(orgs)} org(s), {leased} leased, {dirty} dirty"
