"""`clawrec sf-pool create|list|reap|limits`: keep the scratch-org pool that salesforce-scratch tasks lease from.

Why a command: runs create orgs lazily, one at a time, only when a spec allows it; a fleet wants its pool filled
ahead of time, expired and unreachable orgs deleted (they still count against the Dev Hub's active-org limit) and
the Dev Hub's limits in sight. Every CLI failure is one line `clawrec: sf-pool …: ALIAS: message`; the pool file
is the one runs use ($CLAWREC_SF_POOL), changed under its lock.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import click

from clawrec.environments import EnvironmentFailed
from clawrec.environments import sf_cli
from clawrec.environments.salesforce import DEFAULT_WAIT_MIN, create_org
from clawrec.environments.sf_pool import OrgPool, org_state
from clawrec.errors import ClawrecError, UsageError

PARALLEL_CREATES = 4  # `sf org create scratch` processes at once (each mostly waits on the Dev Hub)


def _say_failure(what: str, exc: Exception) -> None:
    click.echo(f"clawrec: sf-pool {what}: {str(exc).removeprefix('salesforce-scratch: ')}", err=True)


@click.group("sf-pool")
def sf_pool() -> None:
    """Manage the Salesforce scratch-org pool ($CLAWREC_SF_POOL, default ~/.clawrec/salesforce-pool.json).

    Needs the Salesforce CLI (`sf`, @salesforce/plugin-org >= 5.11; $CLAWREC_SF_BIN) with the Dev Hub
    authorized."""


@sf_pool.command("create")
@click.argument("count", type=click.IntRange(1, 100))
@click.option("--definition", "-f", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Scratch org definition file (config/project-scratch-def.json).")
@click.option("--dev-hub", "-v", "dev_hub", required=True, help="Dev Hub username or alias.")
@click.option("--days", "-y", type=click.IntRange(1, 30), default=7, show_default=True,
              help="Days until the orgs expire.")
@click.option("--pool", "pool_name", default="default", show_default=True, help="Pool name the orgs join.")
@click.option("--wait-min", type=click.IntRange(min=2), default=DEFAULT_WAIT_MIN, show_default=True,
              help="Minutes to wait for each org (the CLI's --wait; a timed-out org is recorded as unreachable).")
def create(count: int, definition: Path, dev_hub: str, days: int, pool_name: str, wait_min: int) -> int:
    """Create COUNT scratch orgs and add them to the pool (free, with their expiration date)."""
    pool = OrgPool()
    spec = {"definition": str(definition.resolve()), "dev_hub": dev_hub, "days": days, "wait_min": wait_min}

    async def one(i: int, gate: asyncio.Semaphore) -> bool:
        async with gate:
            try:
                entry = await create_org(spec, Path("/"), pool_name, pool)
            except EnvironmentFailed as exc:
                _say_failure(f"create: org {i}/{count}", exc)
                return False
        pool.add(entry)
        click.echo(f"created {entry['alias']} {entry['username']} (pool {pool_name}, expires "
                   f"{entry.get('expires', 'unknown')})")
        return True

    async def all_of_them() -> list[bool]:
        gate = asyncio.Semaphore(PARALLEL_CREATES)
        return list(await asyncio.gather(*(one(i + 1, gate) for i in range(count))))

    made = asyncio.run(all_of_them())
    click.echo(f"clawrec: sf-pool: {sum(made)} of {count} org(s) created in {pool.path}")
    return 0 if all(made) else 1


@sf_pool.command("list")
@click.option("--pool", "pool_name", default=None, help="Only this pool.")
def list_orgs(pool_name: str | None) -> int:
    """One line per org: alias, username, pool, state (free|leased|dirty|unreachable|expired), lease, expiry."""
    pool = OrgPool()
    orgs = [o for o in pool.orgs() if pool_name is None or o.get("pool", "default") == pool_name]
    for org in orgs:
        lease = org.get("lease") or {}
        held = f"leased by {lease.get('holder')} since {lease.get('since')}" if lease else "-"
        why = org.get("dirty") or org.get("unreachable") or ""
        click.echo("\t".join([str(org.get("alias") or "-"), str(org.get("username") or "-"),
                              str(org.get("pool", "default")), org_state(org), held,
                              f"expires {org.get('expires') or 'unknown'}"] + ([why] if why else [])))
    click.echo(f"clawrec: sf-pool: {len(orgs)} org(s) in {pool.path}")
    return 0


@sf_pool.command("reap")
@click.option("--pool", "pool_name", default=None, help="Only this pool.")
@click.option("--dirty", is_flag=True, help="Also delete orgs whose reset failed (dirty).")
def reap(pool_name: str | None, dirty: bool) -> int:
    """Delete expired and unreachable orgs (`sf org delete scratch`) and drop them from the pool.

    An unreachable org is checked first (`sf org display`): one that answers again is kept and freed."""
    pool = OrgPool()
    doomed = [o for o in pool.orgs() if (pool_name is None or o.get("pool", "default") == pool_name)
              and org_state(o) in ("expired", "unreachable") + (("dirty",) if dirty else ())]
    failures = 0
    for org in doomed:
        key = str(org.get("username") or org.get("alias"))
        name = str(org.get("alias") or key)
        try:
            failures += asyncio.run(_reap_one(pool, org, key, name))
        except ClawrecError as exc:
            _say_failure(f"reap: {name}", exc)
            failures += 1
    click.echo(f"clawrec: sf-pool: {len(doomed) - failures} of {len(doomed)} org(s) reaped in {pool.path}")
    return 1 if failures else 0


async def _reap_one(pool: OrgPool, org: dict[str, Any], key: str, name: str) -> int:
    """0 when the org was deleted (or found reachable again and freed), 1 when it is left in the pool."""
    if org_state(org) == "unreachable" and org.get("username"):
        try:
            await sf_cli.org_display(key)
            await sf_cli.access_token(key)
        except sf_cli.CliMissing:
            raise
        except EnvironmentFailed:
            pass
        else:
            def reachable(o: dict[str, Any]) -> bool:
                o.pop("unreachable", None)
                return False  # kept
            pool.edit(key, reachable)
            click.echo(f"{name}: reachable again; kept in the pool")
            return 0
    try:
        await sf_cli.delete_scratch(key)
    except sf_cli.CliFailed as exc:
        if exc.name != "NoAuthInfoFoundError":
            raise
        if not org.get("username"):  # a creation that timed out: the CLI never got to know its alias
            _say_failure(f"reap: {name}", EnvironmentFailed(
                "its creation timed out and the CLI does not know it; finish it with `sf org resume scratch "
                "--use-most-recent` (then reap again), or delete it on the Dev Hub and remove the entry"))
            return 1
    pool.edit(key, lambda o: True)
    click.echo(f"{name}: deleted ({org_state(org)}: {org.get('unreachable') or org.get('dirty') or 'expired'})")
    return 0


@sf_pool.command("limits")
@click.option("--dev-hub", "-v", "dev_hub", required=True, help="Dev Hub username or alias.")
def limits(dev_hub: str) -> int:
    """The Dev Hub's scratch-org limits: ActiveScratchOrgs and DailyScratchOrgs (used / max, remaining)."""
    try:
        rows = asyncio.run(sf_cli.hub_limits(dev_hub))
    except EnvironmentFailed as exc:
        raise ClawrecError(f"sf-pool limits: {str(exc).removeprefix('salesforce-scratch: ')}") from None
    found = {r.get("name"): r for r in rows if isinstance(r, dict)}
    for name in ("ActiveScratchOrgs", "DailyScratchOrgs"):
        row = found.get(name)
        if row is None:
            raise UsageError(f"sf-pool limits: {dev_hub} reports no {name}: is it a Dev Hub?")
        used = int(row.get("max", 0)) - int(row.get("remaining", 0))
        click.echo(f"{name}: {used}/{row.get('max')} used, {row.get('remaining')} remaining")
    return 0
