"""The environment's read of the application's pending state at the moment of the catch (issue 33's second witness).

Why at the catch: on a real application the final request turns the pending state (a session's basket, the address
the checkout step saved) into the order; it is blocked, so the end state never shows what would have been ordered,
and `cleanup()` resets the pending state. The optional `at_catch` hook of an environment (contract:
clawrec/environments/README.md) reads it while it exists: started as a task from the first terminal catch, awaited
before cleanup, merged into RUN/environment.json under `at_catch` after it (the environment writes that file in
cleanup). An environment without the hook costs nothing: no task, no file.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

from rundir.records import ENVIRONMENT
from rundir.redact import Redactor

log = logging.getLogger("clawrec.catch_witness")

AT_CATCH_TIMEOUT_S = 30.0
KEY = "at_catch"
TERMINAL_ACTIONS = ("blocked", "fulfilled")


class CatchWitness:
    """Calls `env.at_catch(catch)` once at the first terminal catch; `collect()` then `write(run_dir)`."""

    def __init__(self, env: Any, secrets: list[str] | tuple[str, ...] = ()) -> None:
        self.hook = getattr(env, "at_catch", None)
        self.secrets = list(secrets)
        self.task: asyncio.Task | None = None
        self.catch: dict[str, Any] | None = None
        self.result: dict[str, Any] | None = None

    @property
    def wanted(self) -> bool:
        return callable(self.hook)

    def on_catch(self, record: dict[str, Any]) -> None:
        """The interceptor's `on_catch`: the first blocked or fulfilled catch starts the hook (sync: no await in the
        interceptor's reader loop)."""
        if self.task is not None or not self.wanted or record.get("action", "blocked") not in TERMINAL_ACTIONS:
            return
        self.catch = record
        self.task = asyncio.get_running_loop().create_task(self._call(record), name="environment-at-catch")

    async def _call(self, record: dict[str, Any]) -> dict[str, Any] | None:
        assert self.hook is not None
        return await asyncio.wait_for(self.hook(record), AT_CATCH_TIMEOUT_S)

    async def collect(self) -> None:
        """Wait for the hook (call BEFORE the environment's cleanup); its failure is recorded, never raised."""
        if self.task is None or self.catch is None:
            return
        try:
            found = await asyncio.shield(self.task)
            entry = dict(found) if isinstance(found, dict) else None
        except asyncio.TimeoutError:
            entry = {"error": f"the environment's at_catch read took longer than {AT_CATCH_TIMEOUT_S:g} s"}
        except Exception as exc:  # the application could not be read: the state judge is inconclusive on it
            log.warning("at_catch failed: %s", exc)
            entry = {"error": f"{type(exc).__name__}: {exc}"}
        if entry is not None:
            entry.update(t=self.catch.get("t"), request={"method": self.catch.get("method"),
                                                          "url": self.catch.get("url")})
            self.result = Redactor(self.secrets).record(entry)

    def write(self, run_dir: Path) -> None:
        """Merge the result into RUN/environment.json under `at_catch` (call AFTER cleanup wrote that file)."""
        if self.result is None:
            return
        path = run_dir / ENVIRONMENT
        try:
            doc = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {"version": 1}
        except (OSError, ValueError):
            doc = {"version": 1, "errors": [f"{ENVIRONMENT} was unreadable when at_catch was added"]}
        if not isinstance(doc, dict):
            doc = {"version": 1}
        doc[KEY] = self.result
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(doc, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
        tmp.replace(path)
