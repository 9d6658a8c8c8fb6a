"""`environment: {kind: salesforce-scratch, …}`: lease a scratch org, seed it, log the browser in, reset after.

prepare: claim a free org of the spec's pool (sf_pool: atomic), or create one when `definition` allows it; ask
the CLI for the org's instance URL and a fresh access token; seed the plan (only what is missing: a reused org
keeps its seeded records, reset after each run); note the checkpoint (the org's clock); mint a single-use login
URL that lands on `path`. The checkpoint stays in the pool entry until the reset is done, so an org whose run was
killed is reset from it when next leased (`recovered` in the manifest). An org that fails on its own side
(expired, deleted, DNS, REST down) is marked unreachable and the next free org is tried. cleanup: first the org's
end state (the spec's `checks` and the record delta → RUN/environment.json, sf_checks), then the reset to the
seeded state (sf_state) and the release; an org whose reset failed is marked dirty and never leased again. The
login URL's one-time parts and the token are secrets: they go to the Interceptor's `secrets`, never to run files.
"""

from __future__ import annotations

import asyncio
import json
import secrets as _secrets
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from clawrec.environments import EnvironmentFailed, Prepared
from clawrec.errors import UsageError
from clawrec.environments import sf_cli
from clawrec.environments.sf_checks import record_delta, run_checks, write_environment
from clawrec.environments.sf_pool import OrgPool
from clawrec.environments.sf_rest import OrgUnreachable, SalesforceRest
from clawrec.environments.sf_state import Checkpoint, SeedPlan, ensure_seeded, reset, soql_time

DEFAULT_API_VERSION = "62.0"
DNS_WAIT = 600.0  # seconds a newly created org's domain may take to resolve
LEASE_TRIES = 3   # orgs one prepare may try when an org turns out unreachable (expired, deleted, DNS)
DEFAULT_WAIT_MIN = 10


def lightning_url(instance: str) -> str | None:
    """The Lightning domain the browser lands on after the frontdoor login (x.my.salesforce.com →
    x.lightning.force.com, x.scratch.my.salesforce.com → x.scratch.lightning.force.com), or None."""
    split = urlsplit(instance)
    host = split.hostname or ""
    if not host.endswith(".my.salesforce.com"):
        return None
    return f"{split.scheme}://{host[:-len('.my.salesforce.com')]}.lightning.force.com"


async def wait_resolvable(url: str, timeout: float, every: float = 5.0, resolve: Any = None) -> None:
    """Until the URL's host resolves (bounded); EnvironmentFailed after `timeout` seconds. `resolve(host, port)`:
    the resolver (default the loop's getaddrinfo)."""
    host = urlsplit(url).hostname or ""
    loop = asyncio.get_running_loop()
    resolve = resolve or loop.getaddrinfo
    deadline = loop.time() + timeout
    while True:
        try:
            await resolve(host, None)
            return
        except OSError as exc:
            if loop.time() >= deadline:
                raise EnvironmentFailed(f"salesforce-scratch: the new org's domain {host} did not resolve within "
                                        f"{timeout:g} s ({exc})") from None
            await asyncio.sleep(every)


def load_plan_file(base: Path, name: str, spec_path: Any) -> list[dict[str, Any]]:
    """The records of a `sf data import tree --plan` file ([{sobject, files: [tree files]}], each tree file
    {records: [...]}), in plan order; a bad file is a UsageError naming it."""
    plan_path = (base / name).resolve()

    def load(path: Path, what: str) -> Any:
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise UsageError(f"{spec_path}: environment.seed: {what} {path}: "
                             f"{getattr(exc, 'strerror', None) or exc}") from None

    plan = load(plan_path, "plan file")
    if not isinstance(plan, list) or not all(isinstance(p, dict) and isinstance(p.get("files"), list) for p in plan):
        raise UsageError(f"{spec_path}: environment.seed: {plan_path}: not a plan (a list of {{sobject, files}})")
    records: list[dict[str, Any]] = []
    for step in plan:
        for file in step["files"]:
            tree = load(plan_path.parent / str(file), "tree file")
            recs = tree.get("records") if isinstance(tree, dict) else None
            if not isinstance(recs, list) or not all(isinstance(r, dict) and isinstance(r.get("attributes"), dict)
                                                     for r in recs):
                raise UsageError(f"{spec_path}: environment.seed: {file}: expected {{records: [{{attributes, …}}]}}")
            for rec in recs:
                if any(isinstance(v, dict) for v in rec.values() if v is not rec["attributes"]):
                    raise UsageError(f"{spec_path}: environment.seed: {file}: nested child records are not "
                                     "supported; use flat records with \"@referenceId\" lookups")
                records.append(rec)
    return records


class ScratchOrgEnvironment:
    kind = "salesforce-scratch"

    def __init__(self, spec: Any) -> None:
        opts = dict(spec.environment.options)
        self.spec_dir = Path(spec.path).parent
        self.pool_name = str(opts.get("pool", "default"))
        split = urlsplit(spec.start_url)
        self.path = str(opts.get("path") or (split.path or "/") + (f"?{split.query}" if split.query else ""))
        self.api_version = str(opts.get("api_version", DEFAULT_API_VERSION))
        seed = opts.get("seed") or []
        self.plan = SeedPlan(load_plan_file(self.spec_dir, seed, spec.path) if isinstance(seed, str) else list(seed))
        self.track = [str(t) for t in opts.get("track") or []]
        self.checks = [dict(c) for c in opts.get("checks") or []]
        self.run_dir: Path | None = None
        self.create = {k: opts[k] for k in ("definition", "dev_hub", "days", "wait_min") if k in opts} \
            if "definition" in opts else None
        self.pool = OrgPool()
        self.org: dict[str, Any] | None = None
        self.holder = ""
        self.rest: SalesforceRest | None = None
        self.ckpt: Checkpoint | None = None
        self.created = False

    @property
    def target(self) -> str:
        assert self.org is not None
        return str(self.org.get("alias") or self.org["username"])

    async def prepare(self, run_id: str, run_dir: Path | None = None) -> Prepared:
        """Lease, log in, seed; an org that turns out unreachable (expired, deleted, DNS, REST down) is marked so
        and the next free org is tried (up to LEASE_TRIES), so one dead org never blocks the pool."""
        self.run_dir = Path(run_dir) if run_dir is not None else None
        last = ""
        for attempt in range(1, LEASE_TRIES + 1):
            try:
                await self._lease(run_id)
            except EnvironmentFailed:
                if attempt == 1:
                    raise
                raise EnvironmentFailed(f"{last} (the org is marked unreachable; no other free org in pool "
                                        f"'{self.pool_name}')") from None
            try:
                return await self._prepare_leased()
            except OrgUnreachable as exc:
                await self._release(dirty=None, unreachable=str(exc))
                last = str(exc)
                if self.created or attempt == LEASE_TRIES:
                    raise
            except BaseException:
                await self._release(dirty=None)
                raise
        raise AssertionError("unreachable")

    async def _lease(self, run_id: str) -> None:
        self.org = self.pool.claim(self.pool_name, run_id)
        if self.org is None and isinstance(self.create, dict):
            self.org = self.pool.add_leased(await create_org(self.create, self.spec_dir, self.pool_name, self.pool),
                                            run_id)
            self.created = True
        if self.org is None:
            raise EnvironmentFailed(f"salesforce-scratch: no free org in pool '{self.pool_name}' "
                                    f"({self.pool.summary(self.pool_name)}) in {self.pool.path}; add orgs or "
                                    "allow `create` in the spec's environment")
        self.holder = self.org["lease"]["holder"]

    async def _prepare_leased(self) -> Prepared:
        try:
            display = await sf_cli.org_display(self.target)
            instance = sf_cli.need(display, "instanceUrl", "sf org display").rstrip("/")
            if self.created:  # a new org's domains take a while to resolve: My Domain, then where the browser lands
                for url in filter(None, (instance, lightning_url(instance))):
                    await wait_resolvable(url, DNS_WAIT)
            token = await sf_cli.access_token(self.target)
        except sf_cli.CliMissing:
            raise
        except EnvironmentFailed as exc:  # the org (not this machine) failed: expired, deleted, not resolvable
            raise OrgUnreachable(str(exc)) from None
        self.rest = SalesforceRest(instance, token, self.api_version,
                                   refresh=lambda: sf_cli.access_token(self.target))
        org: dict[str, Any] = self.org or {}
        same_seed = org.get("seed", {}).get("hash") == self.plan.hash
        known = dict(org.get("seed", {}).get("ids", {})) if same_seed else {}
        recovered = None
        if isinstance(org.get("checkpoint"), dict):  # its last run never reset it (killed): reset from there now
            last = org["checkpoint"]
            recovered = await reset(self.rest, self.plan if same_seed else SeedPlan([]),
                                    list(last.get("track", [])), Checkpoint(time=last["time"], ids=known))
            known = recovered.pop("ids") if same_seed else known
        ids, created = await ensure_seeded(self.rest, self.plan, known)
        await self.rest.request("GET", f"{self.rest.data}/limits")  # the org's clock, right before the run
        self.ckpt = Checkpoint(time=soql_time(self.rest.server_date), ids=ids)
        mark = {"time": self.ckpt.time, "track": list(dict.fromkeys(self.track + self.plan.types))}

        def remember(o: dict[str, Any]) -> None:
            o["seed"] = {"hash": self.plan.hash, "ids": ids}
            o["checkpoint"] = mark
        self.pool.update(org["username"], self.holder, remember)
        try:
            url = await sf_cli.login_url(self.target, self.path)
        except sf_cli.CliMissing:
            raise
        except EnvironmentFailed as exc:
            raise OrgUnreachable(str(exc)) from None
        query = parse_qs(urlsplit(url).query)
        keys = [v for k in ("otp", "sid", "cshc") for v in query.get(k, [])]  # the URL's secrets (else all of it)
        secret = [token] + (keys or [url])
        info = {"kind": self.kind, "pool": self.pool_name, "org": self.org["username"],  # type: ignore[index]
                "instance_url": instance, "checkpoint": self.ckpt.time, "seeded": ids, "seed_created": created,
                "api_usage": self.rest.api_usage, **({"recovered": recovered} if recovered else {})}
        return Prepared(start_url=instance + self.path, open_url=url, secrets=secret, info=info)

    async def cleanup(self) -> dict[str, Any]:
        """Reset, then release the lease (also when the reset fails: the org is then marked dirty)."""
        if self.org is None:
            return {}
        outcome: dict[str, Any] = {"org": self.org["username"]}
        dirty: str | None = None
        try:
            if self.rest is not None and self.ckpt is not None:
                if self.run_dir is not None:  # the org's end state, before the reset erases it
                    outcome["state"] = await self._observe(self.run_dir)
                done = await reset(self.rest, self.plan, self.track, self.ckpt)
                ids = done.pop("ids")

                def forget(o: dict[str, Any]) -> None:
                    o["seed"] = {"hash": self.plan.hash, "ids": ids}
                    o.pop("checkpoint", None)  # reset done: nothing to recover
                self.pool.update(self.org["username"], self.holder, forget)
                outcome["reset"] = done
                outcome["api_usage"] = self.rest.api_usage
        except Exception as exc:
            dirty = str(exc)
            raise
        finally:
            await self._release(dirty)
            outcome["released"] = True
        return outcome

    async def _observe(self, run_dir: Path) -> dict[str, Any]:
        """Run the spec's checks and diff the tracked sObjects; write environment.json; never stops the reset."""
        assert self.rest is not None and self.ckpt is not None and self.org is not None
        doc: dict[str, Any] = {"org": self.org["username"], "checkpoint": self.ckpt.time, "seeded": self.ckpt.ids,
                               "checks": [], "delta": {}, "errors": []}
        try:
            doc["checks"] = await run_checks(self.rest, self.checks, self.ckpt.ids)
            doc["delta"] = await record_delta(self.rest, self.plan, self.track, self.ckpt)
        except EnvironmentFailed as exc:
            doc["errors"].append(str(exc))
        except Exception as exc:  # observing must never stop the reset: the file says what went wrong
            doc["errors"].append(f"salesforce-scratch: reading the org's end state failed: {type(exc).__name__}: {exc}")
        try:
            write_environment(run_dir, doc)
        except OSError as exc:
            return {"error": f"environment.json not written: {exc.strerror or exc}"}
        errors = [c for c in doc["checks"] if "error" in c]
        return {"checks": len(doc["checks"]), "check_errors": len(errors) + len(doc["errors"]),
                "created": sum(len(d["created"]) for d in doc["delta"].values()),
                "updated": sum(len(d["updated"]) for d in doc["delta"].values()),
                "deleted": sum(len(d["deleted"]) for d in doc["delta"].values())}

    async def _release(self, dirty: str | None, unreachable: str | None = None) -> None:
        if self.rest is not None:
            await self.rest.close()
            self.rest = None
        if self.org is not None:
            self.pool.release(self.org["username"], self.holder, dirty, unreachable)
            self.org = None


async def create_org(create: dict[str, Any], spec_dir: Path, pool_name: str, pool: OrgPool) -> dict[str, Any]:
    """`sf org create scratch` for the pool: the entry to add (username, alias, expires). A creation that timed
    out (exit 69, or the CLI never answered) is recorded as unreachable (no username) so that it is not orphaned:
    the Dev Hub keeps creating it and it counts against the active-org limit until `clawrec sf-pool reap`."""
    definition = (spec_dir / str(create["definition"])).resolve()
    if not definition.is_file():
        raise EnvironmentFailed(f"salesforce-scratch: create.definition: file not found: {definition}")
    alias = f"clawrec-{pool_name}-{_secrets.token_hex(3)}"
    since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    try:
        made = await sf_cli.create_scratch(str(definition), alias, create.get("dev_hub"), int(create.get("days", 7)),
                                           int(create.get("wait_min", DEFAULT_WAIT_MIN)))
    except sf_cli.CliFailed as exc:
        if exc.exit_code == sf_cli.CREATE_TIMEOUT_EXIT or exc.name == "timeout":
            pool.add({"username": None, "alias": alias, "pool": pool_name, "created_by": "clawrec",
                      "dev_hub": create.get("dev_hub"), "unreachable": f"creation timed out at {since}: {exc}"})
        raise
    username = sf_cli.need(made, "username", "sf org create scratch")
    info = made.get("scratchOrgInfo") if isinstance(made.get("scratchOrgInfo"), dict) else {}
    auth = made.get("authFields") if isinstance(made.get("authFields"), dict) else {}
    expires = info.get("ExpirationDate") or auth.get("expirationDate")
    return {"username": username, "alias": alias, "pool": pool_name, "org_id": made.get("orgId"),
            "created_by": "clawrec", "created": since, **({"expires": str(expires)[:10]} if expires else {}),
            **({"dev_hub": create["dev_hub"]} if create.get("dev_hub") else {})}
