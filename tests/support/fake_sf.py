#!/usr/bin/env python3
"""A stand-in for the Salesforce CLI (`sf`), for tests: the subcommands clawrec calls, answering with `--json` in
the documented shapes ({status, result, warnings}; failures exit non-zero with {status, name, message, exitCode}).

It reads the orgs from $FAKE_SF_STATE (written by tests/support/salesforce_server.py) and talks to the org
stand-ins over HTTP like the real CLI talks to Salesforce: `org open` asks the org for a single-use frontdoor URL
(POST /services/oauth2/singleaccess), `org create scratch` asks the Dev Hub. Every call is appended to the state's
`calls` file. Standard library only (it runs under any python3).
"""

import datetime
import json
import os
import sys
import urllib.parse
import urllib.request

EXPIRED = ("RefreshTokenAuthError", "Error authenticating with the refresh token due to: expired access/refresh token")


def out(result, code=0):
    print(json.dumps({"status": 0, "result": result, "warnings": []}, indent=2))
    sys.exit(code)


def fail(name, message, code=1, command=""):
    """The shape sf-plugins-core's SfCommandError.toJson writes to stdout with --json."""
    print(json.dumps({"name": name, "message": message, "exitCode": code, "actions": [], "context": command or name,
                      "data": {}, "stack": f"{name}: {message}\n    at fake_sf", "cause": f"{name}: {message}",
                      "warnings": [], "code": str(code) if name == "Error" else name, "status": code,
                      "commandName": command or name, "result": None}, indent=2))
    sys.exit(code)


def flag(args, *names, default=None):
    for i, a in enumerate(args):
        if a in names and i + 1 < len(args):
            return args[i + 1]
    return default


def post(url, token=None, body=None, method="POST"):
    req = urllib.request.Request(url, data=None if method == "GET" else json.dumps(body or {}).encode(), method=method,
                                 headers={"Content-Type": "application/json",
                                          **({"Authorization": f"Bearer {token}"} if token else {})})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read())


def main(argv):
    state_path = os.environ.get("FAKE_SF_STATE")
    if not state_path:
        fail("MissingState", "FAKE_SF_STATE is not set")
    state = json.load(open(state_path))
    with open(state["calls"], "a") as fh:
        fh.write(json.dumps(argv) + "\n")
    if "--json" not in argv:
        print("this stand-in only answers --json", file=sys.stderr)
        sys.exit(2)
    words = [a for a in argv if not a.startswith("-")]
    target = flag(argv, "-o", "--target-org")

    def org():
        if not target:
            fail("NoDefaultEnvError", "No default environment found. Use -o or --target-org to specify an environment.")
        for alias, o in state["orgs"].items():
            if target in (alias, o["username"]) and not o.get("deleted"):
                if o.get("expired") and words[:3] != ["org", "delete", "scratch"]:
                    fail(*EXPIRED)
                return alias, o
        fail("NoAuthInfoFoundError", f"No authorization information found for {target}.")

    def hub():
        name = flag(argv, "-v", "--target-dev-hub") or flag(argv, "-o", "--target-org")
        if name is None or name in state.get("unknownHubs", []):
            fail("NoDefaultDevHubError" if name is None else "NoAuthInfoFoundError",
                 "No default dev hub found." if name is None else f"No authorization information found for {name}.")
        return name

    if words[:2] == ["org", "display"]:
        alias, o = org()
        out({"id": o["orgId"], "apiVersion": "62.0", "accessToken": "[REDACTED] use sf org auth show-access-token",
             "instanceUrl": o["instanceUrl"], "username": o["username"], "clientId": "PlatformCLI",
             "status": "Active", "expirationDate": o.get("expirationDate"), "createdBy": o["username"],
             "edition": "Developer", "alias": alias})
    if words[:3] == ["org", "auth", "show-access-token"]:
        _, o = org()
        out({"accessToken": o["accessToken"]})
    if words[:2] == ["org", "open"]:
        _, o = org()
        if "--url-only" not in argv and "-r" not in argv:
            fail("NoBrowser", "the stand-in cannot open a browser; use --url-only")
        path = flag(argv, "-p", "--path")  # sfdx-core Org.getFrontDoorUrl: GET singleaccess?redirect_uri=PATH
        query = f"?redirect_uri={urllib.parse.quote(path, safe='')}" if path else ""
        doc = post(o["instanceUrl"] + "/services/oauth2/singleaccess" + query, o["accessToken"], method="GET")
        out({"orgId": o["orgId"], "url": doc["frontdoor_uri"], "username": o["username"]})
    if words[:3] == ["org", "create", "scratch"]:
        definition = flag(argv, "-f", "--definition-file")
        if not definition or not os.path.isfile(definition):
            fail("InvalidProjectWorkspaceError", f"definition file not found: {definition}")
        if os.environ.get("FAKE_SF_HUB_LIMIT") == "0":
            fail("ScratchOrgCreateError", "The signup request failed because this organization has reached its "
                                          "active scratch org limit", 1)
        hub()
        wait = int(flag(argv, "-w", "--wait", default="5"))
        if wait < 2:
            fail("Error", "Expected --wait=1 to be greater than or equal to 2", 2)
        if os.environ.get("FAKE_SF_CREATE_TIMEOUT"):  # plugin-org: ScratchOrgInfoTimeoutError → exit 69
            fail("Error", "The scratch org did not complete within your wait time", 69, "org create scratch")
        alias = flag(argv, "-a", "--alias")
        days = int(flag(argv, "-y", "--duration-days", default="7"))
        expires = (datetime.date.today() + datetime.timedelta(days=days)).isoformat()
        made = post(state["hubUrl"] + "/_hub/orgs", body={"alias": alias, "definition": json.load(open(definition)),
                                                          "expirationDate": expires})
        auth = {"accessToken": "[REDACTED]", "instanceUrl": made["instanceUrl"], "orgId": made["orgId"],
                "username": made["username"], "loginUrl": made["instanceUrl"], "expirationDate": expires}
        out({"username": made["username"], "orgId": made["orgId"],
             "scratchOrgInfo": {"Id": "2SR" + made["orgId"][3:], "ScratchOrg": made["orgId"][:15],
                                "SignupUsername": made["username"], "LoginUrl": made["instanceUrl"],
                                "ExpirationDate": expires, "Status": "Active"},
             "authFields": auth, "warnings": []})
    if words[:3] == ["org", "delete", "scratch"]:
        alias, o = org()
        post(state["hubUrl"] + "/_hub/delete", body={"alias": alias})
        out({"orgId": o["orgId"], "username": o["username"]})
    if words[:3] == ["org", "list", "limits"]:
        hub()
        active, daily = post(state["hubUrl"] + "/_hub/limits", method="GET")["counts"]
        out([{"name": "ActiveScratchOrgs", "max": 3, "remaining": 3 - active},
             {"name": "DailyApiRequests", "max": 15000, "remaining": 14990},
             {"name": "DailyScratchOrgs", "max": 6, "remaining": 6 - daily}])
    fail("CommandNotFound", f"command {' '.join(words)} not found", 127)


if __name__ == "__main__":
    main(sys.argv[1:])
