"""The scratch-org environment's state side without a browser: checks and the record delta written before the
reset, the state judge reading them offline (inconclusive when the org did not answer), REST refusing the UI
session, a reset after cascade deletes, an expired org at the head of the pool, a creation that timed out, leases of
a dead host."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from clawrec.environments import EnvironmentFailed, create_environment
from clawrec.environments.sf_pool import OrgPool
from evaluator.errors import JudgeError
from evaluator.state_judge import judge_state
from rundir.reader import RunDir
from taskspec.load import load_spec
from tests.environments.helpers import SPEC, write_spec

CONTACT_SPEC = SPEC.parent / "sf-create-contact.yaml"


def api(org, method, path, body=None):
    """A REST call with the org's API token (what the agent's side effects do behind the environment's back)."""
    req = urllib.request.Request(org.url + "/services/data/v62.0" + path, method=method,
                                 data=json.dumps(body).encode() if body else None,
                                 headers={"Authorization": f"Bearer {org.token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read() or b"null")


def run_dir(path: Path, task: str = "sf-create-contact") -> Path:
    path.mkdir(parents=True)
    (path / "manifest.json").write_text(json.dumps({"id": path.name, "task": {"id": task}, "status": "ok"}))
    return path


def test_checks_and_delta_are_written_before_the_reset_and_judged_offline(sf, tmp_path):
    org = sf.orgs["pool1"]
    sf.pool_file(sf.pool_path, aliases=["pool1"])
    rd = run_dir(tmp_path / "run")

    async def scenario():
        env = create_environment(load_spec(CONTACT_SPEC))
        prepared = await env.prepare("run", rd)
        acme = prepared.info["seeded"]["AcmeRef"]
        grace = api(org, "POST", "/sobjects/Contact/", {"FirstName": "Grace", "LastName": "Hopper",
                                                        "Email": "grace@analytical.example", "AccountId": acme})["id"]
        api(org, "PATCH", f"/sobjects/Account/{acme}", {"Phone": "1"})
        done = await env.cleanup()
        return acme, grace, done

    acme, grace, done = asyncio.run(scenario())
    state = json.loads((rd / "environment.json").read_text())
    (check,) = state["checks"]
    assert check["expect"] == {"count": 1, "fields": {"FirstName": "Grace", "LastName": "Hopper", "AccountId": acme}}
    assert check["result"]["count"] == 1 and check["result"]["records"][0]["Id"] == grace
    assert state["delta"]["Contact"]["created"] == [{"id": grace, "fields": {
        "FirstName": "Grace", "LastName": "Hopper", "Email": "grace@analytical.example", "AccountId": acme}}]
    assert state["delta"]["Account"]["updated"][0]["changed"] == {"Phone": {"before": "+44 20 7946 0000",
                                                                            "after": "1"}}
    assert done["state"] == {"checks": 1, "check_errors": 0, "created": 1, "updated": 1, "deleted": 0}
    assert done["reset"] == {"deleted": 1, "restored": 1, "recreated": 0} and "Contact" not in org.data()
    verdict = judge_state(RunDir(rd))
    assert verdict.verdict == "PASS" and verdict.judge == "state", verdict.justification
    assert "Contact: 1 created" in verdict.justification
    # Every call of the environment used Bearer; the browser's session cookie is refused by REST.
    assert {e["auth"] for e in org.log if e["path"].startswith("/services/data/")} == {"bearer"}
    org.sessions.add("browser-sid")
    req = urllib.request.Request(org.url + "/services/data/v62.0/query?q=SELECT+Id+FROM+Lead",
                                 headers={"Cookie": "sid=browser-sid"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(req, timeout=10)
    assert refused.value.code == 401 and b"INVALID_SESSION_ID" in refused.value.read()


def test_blocked_lead_gives_a_zero_count_and_a_missing_file_cannot_be_judged(sf, tmp_path):
    sf.pool_file(sf.pool_path, aliases=["pool1"])
    rd = run_dir(tmp_path / "run", "sf-create-lead")

    async def scenario():
        env = create_environment(load_spec(SPEC))
        await env.prepare("run", rd)
        await env.cleanup()

    asyncio.run(scenario())
    state = json.loads((rd / "environment.json").read_text())
    assert state["checks"][0]["result"] == {"count": 0, "records": []} and state["delta"] == {}
    assert judge_state(RunDir(rd)).verdict == "PASS"
    state["checks"][0]["result"]["count"] = 1  # the save got through
    (rd / "environment.json").write_text(json.dumps(state))
    failed = judge_state(RunDir(rd))
    assert failed.verdict == "FAIL" and "1 row(s), expected 0" in failed.justification
    (rd / "environment.json").unlink()
    with pytest.raises(JudgeError, match="environment.json: inconclusive: not found"):
        judge_state(RunDir(rd))


def judged_inconclusive(rd: Path, capsys, everywhere: bool = True) -> str:
    """The state judge (and, `everywhere`, the bench and `clawrec judge`) call the run inconclusive: never PASS or
    FAIL."""
    from clawrec.bench.judging import judge_slot
    from clawrec.bench.plan import AgentEntry, Slot, SpecEntry
    from clawrec.bench.state import SlotState
    from clawrec.cli import main

    with pytest.raises(JudgeError, match="inconclusive") as err:
        judge_state(RunDir(rd))
    if not everywhere:
        return str(err.value)
    slot = Slot(SpecEntry("sf-create-lead", str(SPEC), "", "work", 300.0), AgentEntry("command"), 1)
    st = SlotState(slot, rd, "done")
    assert judge_slot(st, "state", None) == "judge_inconclusive" and st.judge_state == "judge_inconclusive"
    assert "inconclusive" in json.loads((rd / "judge_error.json").read_text())["error"]
    capsys.readouterr()
    assert main(["judge", str(rd), "--judge", "state"]) == 1
    assert "inconclusive" in capsys.readouterr().err and not (rd / "verdict.json").exists()
    return str(err.value)


def test_a_state_the_org_did_not_answer_is_inconclusive(sf, tmp_path, capsys):
    org = sf.orgs["pool1"]
    sf.pool_file(sf.pool_path, aliases=["pool1"])
    answers = {"malformed": (200, "<html>Down for maintenance</html>"),
               "unreachable": (503, "<html>Service Unavailable</html>")}
    for name, answer in answers.items():
        org.query_answers = {"FROM Lead WHERE Email": answer}  # the check's query only: the reset still works
        rd = run_dir(tmp_path / name, "sf-create-lead")

        async def scenario():
            env = create_environment(load_spec(SPEC))
            await env.prepare("run", rd)
            return await env.cleanup()

        done = asyncio.run(scenario())
        (check,) = json.loads((rd / "environment.json").read_text())["checks"]
        assert "result" not in check and ("malformed answer" if name == "malformed" else "HTTP 503") in check["error"]
        assert done["state"]["check_errors"] == 1 and done["released"] and "reset" in done
        assert "did not answer" in judged_inconclusive(rd, capsys, everywhere=name == "malformed")
    assert not json.loads(sf.pool_path.read_text())["orgs"][0].get("dirty")
    # Offline: a result that is no query result, no expectation, no checks, no file at all.
    path = rd / "environment.json"
    state = json.loads(path.read_text())
    for bad in ({"result": {"count": "1", "records": []}}, {"result": {"count": 0, "records": "none"}},
                {"result": {"count": 0, "records": []}, "expect": {}}):
        check = {k: v for k, v in {**state["checks"][0], **bad}.items() if k != "error"}
        path.write_text(json.dumps({**state, "checks": [check]}))
        judged_inconclusive(rd, capsys, everywhere=False)
    path.write_text(json.dumps({**state, "checks": []}))
    assert "no state checks were run" in judged_inconclusive(rd, capsys, everywhere=False)
    path.unlink()
    assert "environment.json: inconclusive: not found" in judged_inconclusive(rd, capsys)


def test_the_stand_in_takes_an_edit_only_as_a_real_org_does(sf):
    """Aura updateRecord: session cookie + aura.token, recordId naming an existing record, apiName null or its own
    object, fields.Id its own; UI API PATCH: Bearer only, {fields}."""
    from urllib.parse import urlencode

    org = sf.orgs["pool1"]
    acme = org.insert("Account", {"Name": "Acme", "Phone": "1"})
    org.sessions.add("sid-1")
    org.lightning.tokens["sid-1"] = "tok-1"

    def aura(params, token="tok-1"):
        message = {"actions": [{"id": "1;a", "descriptor": "aura://RecordUiController/ACTION$updateRecord",
                                "params": params}]}
        req = urllib.request.Request(org.url + "/aura?r=1&aura.RecordUi.updateRecord=1", method="POST",
                                     data=urlencode({"message": json.dumps(message), "aura.token": token}).encode(),
                                     headers={"Cookie": "sid=sid-1"})
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                act = json.loads(resp.read())["actions"][0]
                return act["state"], (act["error"] or [{}])[0].get("message", "")
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    assert aura({"recordId": acme, "recordInput": {"fields": {"Phone": "2"}}}, token="stolen")[0] == 401
    assert "INVALID_TYPE" in aura({"recordId": acme, "recordInput": {"apiName": "Lead", "fields": {"Phone": "2"}}})[1]
    assert "INVALID_ID_FIELD" in aura({"recordId": acme, "recordInput": {"fields": {"Id": "001x", "Phone": "2"}}})[1]
    assert "INVALID_ID_FIELD" in aura({"recordId": "00Q000000000000AAA", "recordInput": {"fields": {}}})[1]
    assert aura({"recordInput": {"fields": {"Phone": "2"}}})[0] == "ERROR"  # no recordId
    assert org.records["Account"][acme]["Phone"] == "1"
    assert aura({"recordId": acme, "recordInput": {"apiName": None, "fields": {"Id": acme, "Phone": "2"}}}) == (
        "SUCCESS", "")
    assert org.records["Account"][acme]["Phone"] == "2"

    def patch(body, auth):
        req = urllib.request.Request(f"{org.url}/services/data/v62.0/ui-api/records/{acme}", method="PATCH",
                                     data=json.dumps(body).encode(), headers={"Content-Type": "application/json",
                                                                              **auth})
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    bearer = {"Authorization": f"Bearer {org.token}"}
    assert patch({"fields": {"Phone": "3"}}, {"Cookie": "sid=sid-1"})[1][0]["errorCode"] == "INVALID_SESSION_ID"
    assert patch({"Phone": "3"}, bearer)[0] == 400 and patch({"apiName": "Lead", "fields": {}}, bearer)[0] == 400
    assert org.records["Account"][acme]["Phone"] == "2"
    status, doc = patch({"apiName": None, "fields": {"Phone": "3"}}, bearer)
    assert status == 200 and doc["fields"]["Phone"]["value"] == "3" == org.records["Account"][acme]["Phone"]


def test_reset_after_cascade_deletes_succeeds_and_the_org_stays_leasable(sf, tmp_path):
    org = sf.orgs["pool1"]
    sf.pool_file(sf.pool_path, aliases=["pool1"])
    spec = write_spec(tmp_path, track=["Lead", "Task", "Opportunity"])

    async def scenario():
        env = create_environment(load_spec(spec))
        prepared = await env.prepare("run-1")
        ids = prepared.info["seeded"]
        new_acct = api(org, "POST", "/sobjects/Account/", {"Name": "Temp Co"})["id"]
        api(org, "POST", "/sobjects/Contact/", {"LastName": "Temp", "AccountId": new_acct})
        api(org, "POST", "/sobjects/Opportunity/", {"Name": "Deal", "StageName": "Prospecting",
                                                    "CloseDate": "2026-12-31", "AccountId": new_acct})
        lead = api(org, "POST", "/sobjects/Lead/", {"LastName": "L", "Company": "C"})["id"]
        api(org, "POST", "/sobjects/Task/", {"Subject": "Call", "WhoId": lead})
        api(org, "DELETE", f"/sobjects/Account/{ids['AcmeRef']}")  # cascades to the seeded Contact
        assert "Contact" not in {t for t, recs in org.data().items() if any(
            r.get("AccountId") == ids["AcmeRef"] for r in recs.values())}
        done = await env.cleanup()
        again = create_environment(load_spec(spec))
        second = await again.prepare("run-2")
        await again.cleanup()
        return done, second

    done, second = asyncio.run(scenario())
    # Account first: its Contact and Opportunity went with it (ENTITY_IS_DELETED counts as done), the Lead's Task too.
    assert done["reset"] == {"deleted": 5, "restored": 0, "recreated": 2}
    assert second.info["org"] == org.username and second.info["seed_created"] == 0
    assert sorted(org.data()) == ["Account", "Contact"]
    assert not json.loads(sf.pool_path.read_text())["orgs"][0].get("dirty")


def test_an_expired_org_at_the_head_of_the_pool_does_not_block_runs(sf, tmp_path):
    pool = sf.pool_file(sf.pool_path)
    doc = json.loads(pool.read_text())
    doc["orgs"].insert(0, {"username": "old@example.com", "alias": "old", "pool": "default", "expires": "2026-01-02"})
    pool.write_text(json.dumps(doc))
    sf.expire_org("pool1")  # expired on the Dev Hub, nothing recorded locally

    async def scenario():
        env = create_environment(load_spec(SPEC))
        prepared = await env.prepare("run")
        await env.cleanup()
        return prepared

    prepared = asyncio.run(scenario())
    assert prepared.info["org"] == sf.orgs["pool2"].username
    orgs = {o["alias"]: o for o in json.loads(pool.read_text())["orgs"]}
    assert orgs["old"]["unreachable"] == "expired on 2026-01-02"  # marked without asking the CLI
    assert "RefreshTokenAuthError" in orgs["pool1"]["unreachable"] and orgs["pool1"]["lease"] is None
    assert not [c for c in sf.calls() if "old" in c]
    assert OrgPool(pool).summary("default") == "3 org(s), 0 leased, 0 dirty, 2 unreachable"


def test_a_creation_that_timed_out_is_recorded(sf, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_SF_CREATE_TIMEOUT", "1")
    sf.pool_path.write_text(json.dumps({"orgs": []}))
    (tmp_path / "def.json").write_text("{}")
    spec = write_spec(tmp_path, definition="def.json", dev_hub="hub", wait_min=2)
    with pytest.raises(EnvironmentFailed, match="did not complete within your wait time"):
        asyncio.run(create_environment(load_spec(spec)).prepare("run"))
    (entry,) = json.loads(sf.pool_path.read_text())["orgs"]
    assert entry["username"] is None and entry["alias"].startswith("clawrec-default-")
    assert "creation timed out" in entry["unreachable"] and entry["lease"] is None


def test_a_lease_from_another_host_expires_after_the_maximum_age(tmp_path, monkeypatch):
    path = tmp_path / "pool.json"
    lease = {"holder": "elsewhere:1:run", "host": "elsewhere", "pid": 1, "run": "run"}
    path.write_text(json.dumps({"orgs": [
        {"username": "a@example.com", "lease": {**lease, "since": "2026-01-01T00:00:00Z"}},
        {"username": "b@example.com", "lease": {**lease, "since": "2999-01-01T00:00:00Z"}}]}))
    monkeypatch.setenv("CLAWREC_SF_LEASE_MAX_AGE", "3600")
    pool = OrgPool(path)
    assert pool.claim("default", "r1")["username"] == "a@example.com"
    assert pool.claim("default", "r2") is None  # the recent one is trusted
