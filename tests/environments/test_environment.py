"""The scratch-org environment without a browser: concurrent leases, reuse of a seeded org, reset after deletes
and edits, token refresh on 401, paging, org creation, and one-line failures from the CLI."""

from __future__ import annotations

import asyncio
import json
import urllib.request

import pytest

from clawrec.environments import EnvironmentFailed, create_environment
from taskspec.load import load_spec
from tests.environments.helpers import SPEC, write_spec


def env_for(path=SPEC):
    return create_environment(load_spec(path))


def api_call(org, method, path, body=None):
    """A REST call with the org's API token: changes data behind the environment's back."""
    req = urllib.request.Request(org.url + path, method=method, data=json.dumps(body).encode() if body else None,
                                 headers={"Authorization": f"Bearer {org.token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read() or b"null")


def test_concurrent_prepares_lease_different_orgs(sf):
    async def scenario():
        a, b, c = env_for(), env_for(), env_for()
        pa, pb = await asyncio.gather(a.prepare("run-a"), b.prepare("run-b"))
        with pytest.raises(EnvironmentFailed, match=r"no free org in pool 'default' \(2 org\(s\), 2 leased"):
            await c.prepare("run-c")
        await asyncio.gather(a.cleanup(), b.cleanup())
        return pa, pb

    pa, pb = asyncio.run(scenario())
    assert {pa.info["org"], pb.info["org"]} == {sf.orgs["pool1"].username, sf.orgs["pool2"].username}
    assert all(o.get("lease") is None for o in json.loads(sf.pool_path.read_text())["orgs"])
    for org in sf.orgs.values():  # each org seeded once, and it holds the seed only
        assert sorted((t, r["Name"] if t == "Account" else r["LastName"]) for t, recs in org.data().items()
                      for r in recs.values()) == [("Account", "Acme Analytical Engines"), ("Contact", "Babbage")]


def test_reused_org_keeps_its_seed_and_reset_restores_deletes_and_edits(sf):
    org = sf.orgs["pool1"]
    sf.pool_file(sf.pool_path, aliases=["pool1"])

    async def scenario():
        first = env_for()
        p1 = await first.prepare("run-1")
        ids = p1.info["seeded"]
        api_call(org, "DELETE", f"/services/data/v62.0/sobjects/Contact/{ids['BabbageRef']}")
        api_call(org, "PATCH", f"/services/data/v62.0/sobjects/Account/{ids['AcmeRef']}", {"Name": "Renamed"})
        for i in range(3):
            api_call(org, "POST", "/services/data/v62.0/sobjects/Lead/", {"LastName": f"L{i}", "Company": "X"})
        sf.expire_token("pool1")  # the environment's token is now refused: it must ask the CLI again
        done = await first.cleanup()
        second = env_for()
        p2 = await second.prepare("run-2")
        await second.cleanup()
        return p1, done, p2

    org.batch = 2  # the reset's queries page through nextRecordsUrl
    p1, done, p2 = asyncio.run(scenario())
    assert done["reset"] == {"deleted": 3, "restored": 1, "recreated": 1}
    assert p1.info["seed_created"] == 2 and p2.info["seed_created"] == 0
    assert p2.info["seeded"]["AcmeRef"] == p1.info["seeded"]["AcmeRef"]
    new_contact = p2.info["seeded"]["BabbageRef"]
    assert new_contact != p1.info["seeded"]["BabbageRef"]
    data = org.data()
    assert "Lead" not in data and data["Account"][p1.info["seeded"]["AcmeRef"]]["Name"] == "Acme Analytical Engines"
    assert data["Contact"][new_contact]["AccountId"] == p1.info["seeded"]["AcmeRef"]
    assert [e["status"] for e in org.log if e["status"] == 401] == [401]  # refused once, then refreshed
    assert any("/query/01g" in e["path"] for e in org.log)


def test_org_is_created_when_the_pool_is_empty(sf, tmp_path):
    sf.pool_path.write_text(json.dumps({"orgs": []}))
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "scratch.json").write_text(json.dumps({"orgName": "clawrec", "edition": "Developer"}))
    spec = write_spec(tmp_path, definition="config/scratch.json", dev_hub="hub", days=1)

    async def scenario():
        env = env_for(spec)
        prepared = await env.prepare("run-c")
        await env.cleanup()
        return prepared

    prepared = asyncio.run(scenario())
    created = [c for c in sf.calls() if c[:3] == ["org", "create", "scratch"]]
    assert len(created) == 1 and ["-v", "hub"] == created[0][created[0].index("-v"):created[0].index("-v") + 2]
    pool = json.loads(sf.pool_path.read_text())["orgs"]
    assert len(pool) == 1 and pool[0]["lease"] is None and pool[0]["created_by"] == "clawrec"
    assert pool[0]["expires"] == sf.orgs[pool[0]["alias"]].expires  # the CLI's ExpirationDate (days=1)
    assert prepared.info["org"] == pool[0]["username"] == sf.orgs[pool[0]["alias"]].username


@pytest.mark.parametrize("setup, message", [
    ("missing_cli", "cannot run the Salesforce CLI"),
    ("hub_limit", "sf org create scratch failed: ScratchOrgCreateError: The signup request failed"),
    ("unknown_org", "sf org display failed: NoAuthInfoFoundError: No authorization information found for ghost"),
])
def test_cli_failures_are_one_line_and_release_the_lease(sf, tmp_path, monkeypatch, setup, message):
    spec = SPEC
    if setup == "missing_cli":
        monkeypatch.setenv("CLAWREC_SF_BIN", str(tmp_path / "no-such-sf"))
    elif setup == "hub_limit":
        monkeypatch.setenv("FAKE_SF_HUB_LIMIT", "0")
        sf.pool_path.write_text(json.dumps({"orgs": []}))
        (tmp_path / "def.json").write_text("{}")
        spec = write_spec(tmp_path, definition="def.json")
    else:
        sf.pool_path.write_text(json.dumps({"orgs": [{"username": "ghost@example.com", "alias": "ghost"}]}))
    with pytest.raises(EnvironmentFailed) as err:
        asyncio.run(env_for(spec).prepare("run-x"))
    assert message in str(err.value) and "\n" not in str(err.value)
    assert all(o.get("lease") is None for o in json.loads(sf.pool_path.read_text())["orgs"])


def test_org_of_a_killed_run_is_reset_when_next_leased(sf):
    """A run that never cleaned up (clawrec killed): its lease is stale (holder pid gone) and the next prepare
    resets from that run's checkpoint before seeding."""
    import subprocess

    org = sf.orgs["pool1"]
    sf.pool_file(sf.pool_path, aliases=["pool1"])
    dead = subprocess.Popen(["true"])
    dead.wait()

    async def scenario():
        killed = env_for()
        first = await killed.prepare("run-killed")
        api_call(org, "POST", "/services/data/v62.0/sobjects/Lead/", {"LastName": "Left", "Company": "Over"})
        api_call(org, "PATCH", f"/services/data/v62.0/sobjects/Account/{first.info['seeded']['AcmeRef']}",
                    {"Phone": "1"})
        await killed.rest.close()  # what dies with the process; no cleanup
        doc = json.loads(sf.pool_path.read_text())
        doc["orgs"][0]["lease"]["pid"] = dead.pid
        sf.pool_path.write_text(json.dumps(doc))
        nxt = env_for()
        second = await nxt.prepare("run-next")
        await nxt.cleanup()
        return first, second

    first, second = asyncio.run(scenario())
    assert second.info["org"] == org.username
    assert second.info["recovered"] == {"deleted": 1, "restored": 1, "recreated": 0}
    assert second.info["seed_created"] == 0 and second.info["seeded"] == first.info["seeded"]
    assert "Lead" not in org.data()
    assert "checkpoint" not in json.loads(sf.pool_path.read_text())["orgs"][0]


def test_failed_reset_marks_the_org_dirty_and_releases_it(sf):
    org = sf.orgs["pool1"]
    sf.pool_file(sf.pool_path, aliases=["pool1"])

    async def scenario():
        env = env_for()
        await env.prepare("run-1")
        api_call(org, "POST", "/services/data/v62.0/sobjects/Lead/", {"LastName": "Stuck", "Company": "X"})
        org.fail_deletes = True
        with pytest.raises(EnvironmentFailed, match="reset: 1 of 1 deletions failed .DELETE_FAILED"):
            await env.cleanup()
        with pytest.raises(EnvironmentFailed, match=r"no free org .*1 dirty"):
            await env_for().prepare("run-2")

    asyncio.run(scenario())
    (entry,) = json.loads(sf.pool_path.read_text())["orgs"]
    assert entry["lease"] is None and "DELETE_FAILED" in entry["dirty"]
