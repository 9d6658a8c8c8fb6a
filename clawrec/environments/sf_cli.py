"""The Salesforce CLI (`sf`, npm @salesforce/cli), called with `--json` and read as documented.

Why the CLI and not OAuth code of our own: it owns the org's auth (JWT / refresh tokens in ~/.sf), refreshes
tokens, and mints single-use frontdoor URLs. `CLAWREC_SF_BIN` names the executable (default `sf`). Every answer is
`{status, result, warnings}`; a failure exits non-zero with `{status, name, message, exitCode, …}` on stdout.
Needs @salesforce/plugin-org >= 5.11 (`sf org auth show-access-token`).
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from clawrec.environments import EnvironmentFailed

SF_BIN_ENV = "CLAWREC_SF_BIN"
CREATE_TIMEOUT_EXIT = 69  # plugin-org: "The scratch org did not complete within your wait time" (still being created)


class CliMissing(EnvironmentFailed):
    """The CLI cannot be run here at all (a problem of this machine, not of any org)."""


class CliFailed(EnvironmentFailed):
    """The CLI answered with an error: `name` (e.g. RefreshTokenAuthError) and `exit_code` kept for callers."""

    def __init__(self, message: str, name: str = "", exit_code: int | None = None) -> None:
        super().__init__(message)
        self.name, self.exit_code = name, exit_code
QUICK_TIMEOUT = 120.0  # seconds for display / token / open (the CLI itself starts in ~1-2 s)


def sf_bin() -> str:
    return os.environ.get(SF_BIN_ENV) or "sf"


async def sf_json(*args: str, timeout: float = QUICK_TIMEOUT, want: type = dict) -> Any:
    """Run `sf ARGS --json`; returns `result` (a dict, or a list with want=list); raises CliFailed with the CLI's
    own message (CliMissing when it cannot be run, CliFailed with exit_code None on our timeout)."""
    what = "sf " + " ".join(a for a in args[:3] if not a.startswith("-"))
    env = {**os.environ, "SF_AUTOUPDATE_DISABLE": "true", "SF_DISABLE_TELEMETRY": "true",
           "SF_USE_PROGRESS_BAR": "false"}
    try:
        proc = await asyncio.create_subprocess_exec(sf_bin(), *args, "--json", stdout=asyncio.subprocess.PIPE,
                                                    stderr=asyncio.subprocess.PIPE, env=env)
    except OSError as exc:
        raise CliMissing(f"salesforce-scratch: cannot run the Salesforce CLI '{sf_bin()}' ({exc.strerror}); "
                                f"install @salesforce/cli or set {SF_BIN_ENV}") from None
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except asyncio.TimeoutError:
        proc.kill()
        await proc.wait()
        raise CliFailed(f"salesforce-scratch: {what} did not answer within {timeout:g} s", "timeout") from None
    try:
        doc = json.loads(out.decode("utf-8", "replace") or "null")
    except ValueError:
        doc = None
    if proc.returncode != 0 or not isinstance(doc, dict) or doc.get("status", 0) != 0:
        message = doc.get("message") if isinstance(doc, dict) else None
        if not message:
            lines = [ln for ln in err.decode("utf-8", "replace").splitlines() if ln.strip()]
            message = lines[-1].strip() if lines else f"exit code {proc.returncode}"
        name = str(doc["name"]) if isinstance(doc, dict) and doc.get("name") else ""
        raise CliFailed(f"salesforce-scratch: {what} failed: {name + ': ' if name else ''}"
                        f"{' '.join(str(message).split())}", name, proc.returncode)
    result = doc.get("result")
    if not isinstance(result, want):
        raise CliFailed(f"salesforce-scratch: {what}: unexpected answer (no result {want.__name__})")
    return result


def need(result: dict[str, Any], key: str, what: str) -> str:
    value = result.get(key)
    if not isinstance(value, str) or not value:
        raise EnvironmentFailed(f"salesforce-scratch: {what}: answer has no '{key}'")
    return value


async def org_display(org: str) -> dict[str, Any]:
    """{id, apiVersion, instanceUrl, username, …}; the accessToken here may be redacted (plugin-org >= 5.11.1)."""
    return await sf_json("org", "display", "-o", org)


async def access_token(org: str) -> str:
    """A fresh access token (the CLI refreshes it first)."""
    return need(await sf_json("org", "auth", "show-access-token", "-o", org), "accessToken",
                "sf org auth show-access-token")


async def login_url(org: str, path: str) -> str:
    """A single-use frontdoor URL that logs a browser in and lands on `path`."""
    return need(await sf_json("org", "open", "--url-only", "-p", path, "-o", org), "url", "sf org open")


async def create_scratch(definition: str, alias: str, dev_hub: str | None, days: int, wait_min: int) -> dict[str, Any]:
    """`sf org create scratch`; returns {username, orgId, scratchOrgInfo{ExpirationDate, …}, authFields{…}, …}.
    A timeout (exit 69, or ours) leaves the org being created on the Dev Hub: the caller records it."""
    args = ["org", "create", "scratch", "-f", definition, "-a", alias, "-y", str(days), "--wait", str(wait_min)]
    if dev_hub:
        args += ["-v", dev_hub]
    return await sf_json(*args, timeout=wait_min * 60 + 60)


async def delete_scratch(org: str) -> dict[str, Any]:
    """`sf org delete scratch --no-prompt`: {orgId, username}."""
    return await sf_json("org", "delete", "scratch", "-o", org, "--no-prompt")


async def hub_limits(dev_hub: str | None) -> list[dict[str, Any]]:
    """`sf org list limits` of the Dev Hub: [{name, max, remaining}] (ActiveScratchOrgs, DailyScratchOrgs, …)."""
    return await sf_json("org", "list", "limits", *(["-o", dev_hub] if dev_hub else []), want=list)
