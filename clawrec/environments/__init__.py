"""Task environments (DESIGN.md "One run", step 2): what exists before the browser starts and is undone after.

Why an interface: a `live` task needs nothing, a `salesforce-scratch` task needs a leased org, seed data, a
single-use login URL and a reset. The pipeline only sees `prepare()` → `Prepared` and `cleanup()`; it never knows
which kind it runs. `prepare` and `cleanup` raise `EnvironmentFailed` (one line, exit 1) for failures outside the
user's control; `cleanup` is called on every path once `prepare` returned (also after an agent crash).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from clawrec.errors import ClawrecError


class EnvironmentFailed(ClawrecError):
    """The environment could not be prepared or reset: one line for the user, exit 1."""


@dataclass
class Prepared:
    """What a prepared environment gives the run.

    start_url: the task's start page as the agent is told it (never secret).
    open_url:  where the browser goes first (e.g. a single-use login URL that redirects to start_url); secret.
    secrets:   values that must never reach a run file (given to the Interceptor's `secrets`).
    info:      facts for the manifest's `environment` key (no secrets).
    sites:     base URLs the environment serves, by name: they fill the spec's `{sites.NAME}` placeholders and join
               the manifest's `sites` (an `app` environment: {app name: its URL on loopback}).
    """

    start_url: str
    open_url: str
    secrets: list[str] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)
    sites: dict[str, str] = field(default_factory=dict)

    def at_recorded_urls(self, recorded: dict[str, str]) -> "Prepared":
        """For a replay (`--site-from`) of a run on an app: the instance runs again on a new port (its checks read
        its DB), but the archive answers only the URLs the source run recorded, so the start/open URLs and
        `{sites.NAME}` become the recorded ones (else every request misses: found replaying oscar's tasks)."""
        start, open_url, sites = self.start_url, self.open_url, dict(self.sites)
        for name, url in self.sites.items():
            if name in recorded:
                start, open_url = start.replace(url, recorded[name], 1), open_url.replace(url, recorded[name], 1)
                sites[name] = recorded[name]
        return replace(self, start_url=start, open_url=open_url, sites=sites)


class Environment(Protocol):
    kind: str

    async def prepare(self, run_id: str, run_dir: Path | None = None) -> Prepared:
        """`run_dir`: where the environment may write its own file (environment.json: the org's end state)."""
        ...

    async def cleanup(self) -> dict[str, Any]:
        """Undo what the run did (reset) and give back what was taken (lease); returns facts for the manifest."""
        ...


class LiveEnvironment:
    """The live web: nothing to prepare or undo."""

    kind = "live"

    def __init__(self, spec: Any) -> None:
        self.start_url = spec.start_url

    async def prepare(self, run_id: str, run_dir: Path | None = None) -> Prepared:
        return Prepared(start_url=self.start_url, open_url=self.start_url, info={"kind": self.kind})

    async def cleanup(self) -> dict[str, Any]:
        return {}


def create_environment(spec: Any) -> Environment:
    """The environment a (validated) spec names; its options were checked by taskspec/check.py."""
    kind = spec.environment.kind
    if kind == "salesforce-scratch":
        from clawrec.environments.salesforce import ScratchOrgEnvironment

        return ScratchOrgEnvironment(spec)
    if kind == "app":
        from clawrec.environments.app import AppEnvironment

        return AppEnvironment(spec)
    return LiveEnvironment(spec)
