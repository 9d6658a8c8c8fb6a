#!/usr/bin/env python3
"""A stand-in for the Salesforce CLI (`sf`), for tests: the subcommands clawrec calls, answering with `--json` in
the documented shapes ({status, result, warnings}; failures exit non-zero with {status, name, message, exitCode}).

It reads the orgs from $FAKE_SF_STATE (written by tests/support/salesforce_server.py) and talks to the org
stand-ins over HTTP like the real CLI talks to Salesforce: `org open` asks the org for a single-use frontdoor URL
(POST /services/oauth2/singleaccess), `org create scratch` asks the Dev Hub. Every call is appended to the state's
`calls` file. Standard library only (it runs under any python3).
"""

import json
import os
import sys
import urllib.parse
import urllib.request


def out(result, code=0):
    print(json.dumps({"status": 0, "result": result, "warnings": []}, indent=2))
    sys.exit(code)


def fail(name, message, code=1):
    print(json.dumps({"status": code, "name": name, "message": message, "exitCode": code, "context": name,
                      "stack": f"{name}: {message}\n    at fake_sf", "warnings": [], "code": name}, indent=2))
    sys.exit(code)


def flag(args, *names, default=None):
    for i, a in enumerate(args):
        if a in names and i + 1 < len(args):
            return args[i + 1]
    return default


def post(url, token=None, body=None):
    req = urllib.request.Request(url, data=json.dumps(body or {}).encode(), method="POST",
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
            if target in (alias, o["username"]):
                return alias, o
        fail("NoAuthInfoFoundError", f"No authorization information found for {target}.")

    if words[:2] == ["org", "display"]:
        alias, o = org()
        out({"id": o["orgId"], "apiVersion": "62.0", "accessToken": "[REDACTED] use sf org auth show-access-token",
             "instanceUrl": o["instanceUrl"], "username": o["username"], "clientId": "PlatformCLI",
             "connectedStatus": "Connected", "status": "Active", "expirationDate": "2026-11-29",
             "edition": "Developer", "alias": alias})
    if words[:3] == ["org", "auth", "show-access-token"]:
        _, o = org()
        out({"accessToken": o["accessToken"]})
    if words[:2] == ["org", "open"]:
        _, o = org()
        if "--url-only" not in argv and "-r" not in argv:
            fail("NoBrowser", "the stand-in cannot open a browser; use --url-only")
        doc = post(o["instanceUrl"] + "/services/oauth2/singleaccess", o["accessToken"])
        path = flag(argv, "-p", "--path")
        url = doc["frontdoor_uri"] + (f"&retURL={urllib.parse.quote(path, safe='')}" if path else "")
        out({"orgId": o["orgId"], "url": url, "username": o["username"]})
    if words[:3] == ["org", "create", "scratch"]:
        definition = flag(argv, "-f", "--definition-file")
        if not definition or not os.path.isfile(definition):
            fail("InvalidProjectWorkspaceError", f"definition file not found: {definition}")
        if os.environ.get("FAKE_SF_HUB_LIMIT") == "0":
            fail("ScratchOrgCreateError", "The signup request failed because this organization has reached its "
                                          "active scratch org limit", 1)
        alias = flag(argv, "-a", "--alias")
        made = post(state["hubUrl"] + "/_hub/orgs", body={"alias": alias, "definition": json.load(open(definition))})
        auth = {"accessToken": "[REDACTED]", "instanceUrl": made["instanceUrl"], "orgId": made["orgId"],
                "username": made["username"], "loginUrl": made["instanceUrl"], "expirationDate": "2026-11-29"}
        out({"username": made["username"], "orgId": made["orgId"],
             "scratchOrgInfo": {"Id": "2SR" + made["orgId"][3:], "ScratchOrg": made["orgId"][:15],
                                "SignupUsername": made["username"], "LoginUrl": made["instanceUrl"],
                                "ExpirationDate": "2026-11-29", "Status": "Active"},
             "authFields": auth, "warnings": []})
    if words[:2] == ["org", "delete"]:
        out({"orgId": org()[1]["orgId"], "username": org()[1]["username"]})
    fail("CommandNotFound", f"command {' '.join(words)} not found", 127)


if __name__ == "__main__":
    main(sys.argv[1:])
