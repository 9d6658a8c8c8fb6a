"""`clawrec run` on a salesforce-scratch task against the stand-in: lease, seed, single-use login, the terminal
save caught before it reaches the org, reset to the seeded state, lease released; secrets stay out of run files."""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from pathlib import Path

from tests.pipeline.helpers import jsonl, manifest, run_cli

REPO = Path(__file__).resolve().parents[2]
SPEC = REPO / "specs" / "salesforce" / "sf-create-lead.yaml"
AGENT = Path(__file__).resolve().parent / "agent_scripts" / "lead_agent.py"
SEEDED_ACCOUNT = {"Name": "Acme Analytical Engines", "Phone": "+44 20 7946 0000"}


def agent_cmd() -> str:
    return f"{sys.executable} {AGENT}"


def seeded_state(org, ids):
    return {"Account": {ids["AcmeRef"]: {"Id": ids["AcmeRef"], **SEEDED_ACCOUNT}},
            "Contact": {ids["BabbageRef"]: {"Id": ids["BabbageRef"], "FirstName": "Charles", "LastName": "Babbage",
                                            "AccountId": ids["AcmeRef"]}}}


def test_scratch_org_run_end_to_end(sf, tmp_path, capsys):
    code, out, err = run_cli([str(SPEC), "--agent", "command", "--agent-cmd", agent_cmd(), "--headless",
                              "--runs-dir", str(tmp_path / "runs")], capsys)
    assert code == 0, err
    run_dir = Path(out[-1])
    m = manifest(run_dir)
    org = sf.orgs["pool1"]  # the first free org of the pool
    assert m["status"] == "intercepted", m["stop_reason"]
    env = m["environment"]
    assert env["org"] == org.username and env["instance_url"] == org.url and env["pool"] == "default"
    assert env["seed_created"] == 2 and env["released"] is True
    assert env["reset"] == {"deleted": 1, "restored": 1, "recreated": 0}  # the agent's Contact; the Account's phone
    ids = env["seeded"]
    # The agent was told the org's own start page and landed there logged in through the single-use URL.
    task = json.loads((run_dir / "task.json").read_text())
    assert task["start_url"] == org.url + "/lightning/o/Lead/new"
    stdout = (run_dir / "agent.stdout.log").read_text()
    assert "agent: side effects [201, 204]" in stdout and "agent: status" in stdout
    fronts = [e for e in org.log if e["path"].startswith("/secur/frontdoor.jsp")]
    assert [e["status"] for e in fronts] == [302]
    assert any(e["path"] == "/lightning/o/Lead/new" and e["auth"] == "cookie" for e in org.log)
    # The terminal save was caught with the seeded company and never reached the org; the side effects did.
    caught = jsonl(run_dir, "interceptions.jsonl")
    assert [c["body"] for c in caught] == [{"FirstName": "Ada", "LastName": "Lovelace",
                                            "Company": "Acme Analytical Engines", "Email": "ada@analytical.example"}]
    assert not [e for e in org.log if "/sobjects/Lead" in e["path"]]
    assert [e["status"] for e in org.log if e["method"] == "POST" and e["auth"] == "cookie"] == [201]
    assert [e["status"] for e in org.log if e["method"] == "PATCH" and e["auth"] == "cookie"] == [204]
    # The org is back to exactly the seeded state; the other org was never touched; the lease is released.
    assert org.data() == seeded_state(org, ids)
    assert sf.orgs["pool2"].log == []
    pool = json.loads(sf.pool_path.read_text())
    entry = next(o for o in pool["orgs"] if o["alias"] == "pool1")
    assert entry["lease"] is None and entry["seed"]["ids"] == ids and not entry.get("dirty")
    # The login URL was single-use and stays a secret: the otp and token are in no run file.
    (otp,) = org.otps
    assert org.otps[otp] is True
    try:
        urllib.request.urlopen(f"{org.url}/secur/frontdoor.jsp?otp={otp}", timeout=10)
        raise AssertionError("a second use of the login URL logged in")
    except urllib.error.HTTPError as exc:
        assert exc.code == 401
    for path in run_dir.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert otp.encode() not in data and org.token.encode() not in data, path
    urls = [r["url"] for r in jsonl(run_dir, "http.jsonl")]
    assert f"{org.url}/secur/frontdoor.jsp?otp=[redacted]&retURL=%2Flightning%2Fo%2FLead%2Fnew" in urls


def test_two_concurrent_runs_lease_different_orgs(sf, tmp_path):
    """Two `clawrec run` processes at once: each gets its own org, each org is reset and released."""
    from tests.pipeline.helpers import spawn_cli

    procs = [spawn_cli([str(SPEC), "--agent", "command", "--agent-cmd", agent_cmd(), "--headless",
                        "--runs-dir", str(tmp_path / f"runs{i}")]) for i in range(2)]
    results = [p.communicate(timeout=240) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err for _, err in results]
    manifests = [manifest(Path(out.strip().splitlines()[-1])) for out, _ in results]
    assert [m["status"] for m in manifests] == ["intercepted", "intercepted"]
    assert {m["environment"]["org"] for m in manifests} == {o.username for o in sf.orgs.values()}
    for m in manifests:
        org = next(o for o in sf.orgs.values() if o.username == m["environment"]["org"])
        assert m["environment"]["reset"]["deleted"] == 1
        assert org.data() == seeded_state(org, m["environment"]["seeded"])
        assert not [e for e in org.log if "/sobjects/Lead" in e["path"]]
    assert all(o["lease"] is None for o in json.loads(sf.pool_path.read_text())["orgs"])
