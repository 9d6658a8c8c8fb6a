"""A pool of already-created scratch orgs in one JSON file, leased with atomic claims.

Why a file lock: some pool tools read "Available", then write "Assigned" without a lock, so two runners can take
one org. Here every read-modify-write of the pool file holds an exclusive `fcntl.flock` on `<file>.lock` and the
file is replaced atomically (temp + rename), so a claim is all-or-nothing and two claims never return one org.
A lease whose holder process is gone (same host, pid dead) is free again; a lease from another host is trusted
until it is older than `$CLAWREC_SF_LEASE_MAX_AGE` seconds (default 6 h: that runner is taken for dead).

File (`$CLAWREC_SF_POOL`, default ~/.clawrec/salesforce-pool.json):
    {"orgs": [{"username": "test-abc@example.com", "alias": "pool1", "pool": "default",
               "lease": null | {"holder": "...", "host": "...", "pid": 123, "since": "...Z", "run": "..."},
               "seed": {"hash": "...", "ids": {"referenceId": "001..."}},   # written by clawrec
               "expires": "2026-11-29",                                       # created by clawrec (ExpirationDate)
               "dirty": "why",            # a failed reset: never leased again
               "unreachable": "why"}]}    # prepare failed on the org (display, token, DNS, REST), its expiry date
                                          # passed, or its creation timed out (username null): not leased until
                                          # `clawrec sf-pool reap` checks it
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
LEASE_AGE_ENV = "CLAWREC_SF_LEASE_MAX_AGE"
LEASE_MAX_AGE = 6 * 3600.0  # seconds a lease from another host is trusted


def lease_max_age() -> float:
    try:
        return float(os.environ.get(LEASE_AGE_ENV) or LEASE_MAX_AGE)
    except ValueError:
        raise EnvironmentFailed(f"{LEASE_AGE_ENV}: must be a number of seconds") from None


def today() -> str:
    return time.strftime("%Y-%m-%d", time.gmtime())


def org_state(org: dict[str, Any]) -> str:
    """free | leased | dirty | unreachable | expired (what `clawrec sf-pool list` shows)."""
    if org.get("dirty"):
        return "dirty"
    if org.get("unreachable"):
        return "unreachable"
    if isinstance(org.get("expires"), str) and org["expires"] <= today():
        return "expired"
    lease = org.get("lease")
    return "leased" if lease and _alive(lease) else "free"


def pool_path() -> Path:
    return Path(os.environ.get(POOL_ENV) or Path.home() / ".clawrec" / "salesforce-pool.json").expanduser()


def _alive(lease: dict[str, Any]) -> bool:
    if lease.get("host") != socket.gethostname() or not isinstance(lease.get("pid"), int):
        try:  # another machine's lease: trusted while younger than the maximum age
            since = time.mktime(time.strptime(str(lease.get("since")), "%Y-%m-%dT%H:%M:%SZ")) - time.timezone
        except ValueError:
            return True
        return time.time() - since < lease_max_age()
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
                isinstance(o, dict) and (isinstance(o.get("username"), str) or isinstance(o.get("alias"), str))
                for o in doc["orgs"]):
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
                if org.get("pool", "default") != pool or not org.get("username"):
                    continue
                state = org_state(org)
                if state == "expired":  # marked, so that `sf-pool reap` deletes it; never blocks the next org
                    org["unreachable"] = f"expired on {org['expires']}"
                if state != "free":
                    continue
                org["lease"] = self.new_lease(run)
                return dict(org)
        return None

    def orgs(self) -> list[dict[str, Any]]:
        with self._locked() as doc:
            return [dict(o) for o in doc["orgs"]]

    def add(self, org: dict[str, Any]) -> None:
        """Add an org entry not leased (a created pool org, or one whose creation timed out)."""
        with self._locked() as doc:
            doc["orgs"].append({**org, "lease": None})

    def edit(self, key: str, change: Callable[[dict[str, Any]], bool]) -> None:
        """Apply `change` to the entry whose username or alias is `key` (no lease needed: pool upkeep); an entry
        for which it returns True is removed."""
        with self._locked() as doc:
            doc["orgs"] = [o for o in doc["orgs"] if not (key in (o.get("username"), o.get("alias")) and change(o))]

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

    def release(self, username: str, holder: str, dirty: str | None = None, unreachable: str | None = None) -> None:
        def free(org: dict[str, Any]) -> None:
            org["lease"] = None
            if dirty:
                org["dirty"] = dirty
            if unreachable:
                org["unreachable"] = unreachable
        self.update(username, holder, free)

    def summary(self, pool: str) -> str:
        with self._locked() as doc:
            states = [org_state(o) for o in doc["orgs"] if o.get("pool", "default") == pool]
        extra = "".join(f", {states.count(s)} {s}" for s in ("unreachable", "expired") if s in states)
        return f"{len(states)} org(s), {states.count('leased')} leased, {states.count('dirty')} dirty{extra}"
