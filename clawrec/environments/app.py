"""`environment: {kind: app, app: NAME, checks: [...]}`: a real application on loopback, from its seeded snapshot.

prepare: claim an instance slot of the app (clawrec/apps/instance.py: the pool for `bench -j N`), copy the snapshot
into it and start the server on 127.0.0.1:0; the spec's `{sites.NAME}` placeholders are filled with its base URL
(`Prepared.sites`), and the manifest's `sites` records it, so the judges fill them as for the local sites.
at_catch: at the first terminal catch, the checks read the pending state (the basket line, the address in the
session) while the blocked submission has not turned it into anything. cleanup: the checks once more (the end
state: what the final submission would have created must be absent) → RUN/environment.json, then the reset to the
snapshot (timed), then the server stops and the slot is free.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from clawrec.apps import corpus
from clawrec.apps.checks import run_checks
from clawrec.apps.instance import AppFailed, AppInstance
from clawrec.environments import EnvironmentFailed, Prepared
from clawrec.environments.sf_checks import write_environment


class AppEnvironment:
    kind = "app"

    def __init__(self, spec: Any) -> None:
        opts = dict(spec.environment.options)
        self.app = corpus.get(str(opts["app"]))
        self.checks = [dict(c) for c in opts.get("checks") or []]
        self.spec_start = spec.start_url
        self.instance: AppInstance | None = None
        self.run_dir: Path | None = None

    def _read(self) -> list[dict[str, Any]]:
        assert self.instance is not None
        return run_checks(self.checks, self.instance.data, self.app.database, self.app.mail, self.app.uploads)

    async def prepare(self, run_id: str, run_dir: Path | None = None) -> Prepared:
        self.run_dir = Path(run_dir) if run_dir is not None else None
        self.instance = AppInstance(self.app)
        try:
            url = await asyncio.to_thread(self.instance.start)
        except AppFailed as exc:
            self.instance = None
            raise EnvironmentFailed(str(exc)) from None
        start = self.spec_start if "{sites." not in self.spec_start else \
            self.spec_start.replace(f"{{sites.{self.app.name}}}", url)
        if "{sites." in start or not start.startswith("http"):
            start = urljoin(url, self.app.start_path)
        info = {"kind": self.kind, "app": self.app.name, "url": url, "slot": self.instance.slot.name
                if self.instance.slot else None, "start_s": round(self.instance.start_s, 3)}
        return Prepared(start_url=start, open_url=start, info=info, sites={self.app.name: url})

    async def at_catch(self, catch: dict[str, Any]) -> dict[str, Any] | None:
        if self.instance is None or not self.checks:
            return None
        return {"checks": await asyncio.to_thread(self._read)}

    async def cleanup(self) -> dict[str, Any]:
        if self.instance is None:
            return {}
        outcome: dict[str, Any] = {"app": self.app.name}
        try:
            if self.run_dir is not None:
                doc: dict[str, Any] = {"app": self.app.name, "url": self.instance.url, "checks": [], "errors": []}
                try:
                    doc["checks"] = await asyncio.to_thread(self._read)
                except Exception as exc:  # reading must never stop the reset: the file says what went wrong
                    doc["errors"].append(f"app: reading the end state failed: {type(exc).__name__}: {exc}")
                write_environment(self.run_dir, doc)
                outcome["state"] = {"checks": len(doc["checks"]),
                                    "check_errors": sum(1 for c in doc["checks"] if "error" in c) + len(doc["errors"])}
            t = time.monotonic()
            try:
                outcome["reset_s"] = round(await asyncio.to_thread(self.instance.reset), 4)
            except AppFailed as exc:
                raise EnvironmentFailed(str(exc)) from None
            outcome["reset_total_s"] = round(time.monotonic() - t, 4)
        finally:
            await asyncio.to_thread(self.instance.stop)
            self.instance = None
        return outcome
