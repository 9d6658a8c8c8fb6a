"""`clawrec run` on salesforce-scratch tasks against the stand-in's Lightning pages, real Chromium: lease, seed,
single-use login, the Lead save caught in each shape Lightning sends it (Aura createRecord, Aura saveRecord, UI API)
and judged from that shape, side effects that must not be caught (an inline Account edit in each shape: Aura
saveRecord, Aura updateRecord, UI API PATCH; a Contact) landing and reset, the Account edit task catching the edits
that name no object (updateRecord, PATCH) by the record's id, the org's end state in environment.json before the
reset, `terminal: land`, secrets out of run files."""

from __future__ import annotations

import json
import shutil
import sys
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import parse_qs

import pytest

from clawrec.cli import main
from taskspec.salesforce_save import record_value
from tests.pipeline.helpers import jsonl, manifest, run_cli
from tests.support.salesforce_lightning import UPDATE_QUERY
from tests.support.salesforce_server import PREFIXES

REPO = Path(__file__).resolve().parents[2]
SPEC = REPO / "specs" / "salesforce" / "sf-create-lead.yaml"
CONTACT_SPEC = REPO / "specs" / "salesforce" / "sf-create-contact.yaml"
EDIT_SPEC = REPO / "specs" / "salesforce" / "sf-edit-account-phone.yaml"
NEW_PHONE = "+44 20 7946 0999"
AGENT = Path(__file__).resolve().parent / "agent_scripts" / "lightning_agent.py"
SEEDED_ACCOUNT = {"Name": "Acme Analytical Engines", "Phone": "+44 20 7946 0000"}
LEAD = {"FirstName": "Ada", "LastName": "Lovelace", "Company": "Acme Analytical Engines",
        "Email": "ada@analytical.example"}


def agent_cmd(*args: str) -> str:
    return " ".join([sys.executable, str(AGENT), *(args or ("lead",))])


def seeded_state(org, ids):
    return {"Account": {ids["AcmeRef"]: {"Id": ids["AcmeRef"], **SEEDED_ACCOUNT}},
            "Contact": {ids["BabbageRef"]: {"Id": ids["BabbageRef"], "FirstName": "Charles", "LastName": "Babbage",
                                            "AccountId": ids["AcmeRef"]}}}


def object_of(record_id: str) -> str:
    return next(name for name, prefix in PREFIXES.items() if record_id.startswith(prefix))


def aura_saves(org) -> list[tuple[str, dict]]:
    """(sObject, record input) of every Aura save that reached the org (an updateRecord names only the id)."""
    out = []
    for e in org.log:
        if e["path"].startswith("/aura") and e["method"] == "POST":
            for action in json.loads(parse_qs(e["body"])["message"][0])["actions"]:
                rec = action["params"].get("recordInput") or action["params"].get("recordRep")
                out.append((rec.get("apiName") or object_of(action["params"]["recordId"]), rec))
    return out


def landed_saves(org) -> list[str]:
    """The sObject of every save that reached the org and was answered with success (Aura or UI API)."""
    ui = [json.loads(e["body"]).get("apiName") or object_of(e["path"].rsplit("/", 1)[1])
          for e in org.log if "/ui-api/records" in e["path"] and e["status"] < 300]
    return [name for name, _ in aura_saves(org)] + ui


def run_task(spec: Path, tmp_path: Path, capsys, *agent: str) -> tuple[Path, dict]:
    """`clawrec run SPEC` with the Lightning agent (`agent` args); (run dir, manifest) of an intercepted run."""
    code, out, err = run_cli([str(spec), "--agent", "command", "--agent-cmd", agent_cmd(*agent), "--headless",
                              "--runs-dir", str(tmp_path / "runs")], capsys)
    assert code == 0, err
    run_dir = Path(out[-1])
    m = manifest(run_dir)
    assert m["status"] == "intercepted", m["stop_reason"]
    return run_dir, m


def judge(capsys, *args: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["judge", *args])
    out, err = capsys.readouterr()
    return code, out + err


def judged_with_wrong_email(run_dir: Path, tmp_path: Path, capsys, spec: Path = SPEC, field: str = "Email",
                            right: str = LEAD["Email"], wrong: str = "ada@wrong.example") -> str:
    """The caught save with another value (in whichever shape it is) must FAIL the payload judge."""
    bad = tmp_path / f"{run_dir.name}-wrong"
    shutil.copytree(run_dir, bad)
    lines = (bad / "interceptions.jsonl").read_text()
    assert right in lines
    (bad / "interceptions.jsonl").write_text(lines.replace(right, wrong))
    (bad / "verdict.json").unlink(missing_ok=True)
    code, text = judge(capsys, str(bad), "--spec", str(spec))
    assert code == 0 and "FAIL (payload)" in text and f"Field {field} equals" in text, text
    return text


def test_scratch_org_run_end_to_end(sf, tmp_path, capsys):
    sf.orgs["pool1"].lightning.edit_shape = "updateRecord"  # the Account edit names no object, only its id
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
    task = json.loads((run_dir / "task.json").read_text())
    assert task["start_url"] == org.url + "/lightning/o/Lead/new"
    stdout = (run_dir / "agent.stdout.log").read_text()
    assert "agent: REST with the session cookie 401" in stdout
    assert "agent: inline edit Account was saved." in stdout and "was created." in stdout
    fronts = [e for e in org.log if e["path"].startswith("/secur/frontdoor.jsp")]
    assert [e["status"] for e in fronts] == [302]
    # REST refuses the browser's session; the environment's seeding, checks and reset used Bearer only.
    rest = [e for e in org.log if e["path"].startswith("/services/data/")]
    assert [(e["auth"], e["status"]) for e in rest if e["auth"] != "bearer"] == [("cookie", 401)]
    # The inline Account edit (updateRecord) and the Contact reached the org through Aura; the Lead save did not.
    assert [name for name, _ in aura_saves(org)] == ["Account", "Contact"]
    assert "apiName" not in aura_saves(org)[0][1] and UPDATE_QUERY in next(
        e["path"] for e in org.log if e["path"].startswith("/aura"))
    caught = jsonl(run_dir, "interceptions.jsonl")
    assert [(c["rule_index"], c["action"]) for c in caught] == [(0, "blocked")]
    assert {f: record_value(caught[0]["body"], f) for f in LEAD} == LEAD
    assert caught[0]["body"]["aura.token"] == "[redacted]"
    # The org's end state was read before the reset: the lead check, the Account edit and the Contact.
    state = json.loads((run_dir / "environment.json").read_text())
    assert state["checks"][0]["result"] == {"count": 0, "records": []}
    delta = state["delta"]
    assert delta["Account"]["updated"] == [{"id": ids["AcmeRef"], "ref": "AcmeRef", "changed": {
        "Phone": {"before": "+44 20 7946 0000", "after": "000"}}}]
    assert [c["fields"]["LastName"] for c in delta["Contact"]["created"]] == ["Scratch"]
    assert delta["Contact"]["created"][0]["fields"]["AccountId"] == ids["AcmeRef"]
    code, text = judge(capsys, str(run_dir), "--judge", "state")
    assert code == 0 and "PASS (state)" in text, text
    code, text = judge(capsys, str(run_dir))
    assert code == 0 and "PASS (payload)" in text, text
    judged_with_wrong_email(run_dir, tmp_path, capsys)
    # The org is back to exactly the seeded state; the other org was never touched; the lease is released.
    assert org.data() == seeded_state(org, ids)
    assert sf.orgs["pool2"].log == []
    pool = json.loads(sf.pool_path.read_text())
    entry = next(o for o in pool["orgs"] if o["alias"] == "pool1")
    assert entry["lease"] is None and entry["seed"]["ids"] == ids and not entry.get("dirty")
    # The login URL was single-use; it, the token and the page's aura.token are in no run file.
    (otp,) = org.otps
    with pytest.raises(urllib.error.HTTPError) as second:
        urllib.request.urlopen(f"{org.url}/secur/frontdoor.jsp?otp={otp}", timeout=10)
    assert second.value.code == 401
    secrets = [otp, org.token, *org.lightning.tokens.values()]
    for path in run_dir.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert not [s for s in secrets if s.encode() in data], path
    urls = [r["url"] for r in jsonl(run_dir, "http.jsonl")]
    assert any(u.startswith(f"{org.url}/secur/frontdoor.jsp?otp=[redacted]&startURL=%2Flightning%2Fo%2FLead%2Fnew")
               for u in urls), urls


@pytest.mark.parametrize("shape, rule, side", [("saveRecord", 1, ()), ("ui-api", 2, ("Account", "Contact"))])
def test_lead_save_in_other_shapes_is_caught_and_judged(sf, tmp_path, capsys, shape, rule, side):
    org = sf.orgs["pool1"]
    org.lightning.save_shape = org.lightning.edit_shape = shape  # UI API: the Account edit is a PATCH by id
    code, out, err = run_cli([str(SPEC), "--agent", "command", "--agent-cmd", agent_cmd(
        "lead", *(() if side else ("--lead-only",))), "--headless", "--runs-dir", str(tmp_path / "runs")], capsys)
    assert code == 0, err
    run_dir = Path(out[-1])
    assert manifest(run_dir)["status"] == "intercepted"
    caught = jsonl(run_dir, "interceptions.jsonl")
    assert [c["rule_index"] for c in caught] == [rule]
    assert {f: record_value(caught[0]["body"], f) for f in LEAD} == LEAD
    assert landed_saves(org) == list(side)  # the side effects landed; the Lead never reached the org
    assert [e["method"] for e in org.log if "/ui-api/" in e["path"]] == (["PATCH", "POST"] if side else [])
    secrets = [*org.lightning.tokens.values(), *org.lightning.api_sessions]  # aura.token; the UI API's Bearer
    assert secrets and not [p for p in run_dir.rglob("*") if p.is_file() and any(
        x.encode() in p.read_bytes() for x in secrets)]
    code, text = judge(capsys, str(run_dir))
    assert code == 0 and "PASS (payload)" in text, text
    judged_with_wrong_email(run_dir, tmp_path, capsys)


@pytest.mark.parametrize("shape, rule", [("updateRecord", 4), ("ui-api", 3)])
def test_account_edit_naming_no_object_is_caught_by_its_id_and_judged(sf, tmp_path, capsys, shape, rule):
    org = sf.orgs["pool1"]
    org.lightning.edit_shape = shape
    run_dir, m = run_task(EDIT_SPEC, tmp_path, capsys, "edit")
    acme = m["environment"]["seeded"]["AcmeRef"]
    (c,) = jsonl(run_dir, "interceptions.jsonl")
    assert (c["rule_index"], c["action"]) == (rule, "blocked")
    assert acme in (c["url"] if shape == "ui-api" else c["body"]["message"])  # the seeded account, by its id
    assert record_value(c["body"], "Phone") == NEW_PHONE
    assert not landed_saves(org) and org.data()["Account"][acme]["Phone"] == SEEDED_ACCOUNT["Phone"]
    code, text = judge(capsys, str(run_dir), "--judge", "state")
    assert code == 0 and "PASS (state)" in text, text
    code, text = judge(capsys, str(run_dir))
    assert code == 0 and "PASS (payload)" in text, text
    judged_with_wrong_email(run_dir, tmp_path, capsys, EDIT_SPEC, "Phone", NEW_PHONE, "+44 20 7946 0111")


def test_land_task_keeps_the_record_for_the_state_judge_then_resets(sf, tmp_path, capsys):
    org = sf.orgs["pool1"]
    run_dir, m = run_task(CONTACT_SPEC, tmp_path, capsys, "contact")
    assert "was created." in (run_dir / "agent.stdout.log").read_text()  # the save landed and was answered
    caught = jsonl(run_dir, "interceptions.jsonl")
    assert [c["action"] for c in caught] == ["landed"]
    assert [name for name, _ in aura_saves(org)] == ["Contact"]
    acme = m["environment"]["seeded"]["AcmeRef"]
    state = json.loads((run_dir / "environment.json").read_text())
    (created,) = state["delta"]["Contact"]["created"]
    assert {k: created["fields"].get(k) for k in ("FirstName", "LastName", "Email", "AccountId")} == {
        "FirstName": "Grace", "LastName": "Hopper", "Email": "grace@analytical.example", "AccountId": acme}
    assert state["checks"][0]["result"]["count"] == 1
    code, text = judge(capsys, str(run_dir), "--judge", "state")
    assert code == 0 and "PASS (state)" in text, text
    # Against a reference recorded on another org: the record fields compare, the account's id is org-specific.
    ref = tmp_path / "reference"
    shutil.copytree(run_dir, ref)
    (ref / "interceptions.jsonl").write_text((ref / "interceptions.jsonl").read_text().replace(
        acme, "0015g00000ABcdEAAT"))
    code, text = judge(capsys, str(run_dir), "--reference", str(ref))
    verdict = json.loads((run_dir / "verdict.json").read_text())
    assert code == 0 and verdict["verdict"] == "PASS", text
    assert [f["field"] for f in verdict["skipped_fields"]] == ["AccountId"]
    assert 'Field FirstName equals "Grace"' in [c["condition"] for c in verdict["conditions"]]
    # The same run with the contact on another account fails the check.
    records = state["checks"][0]["result"]["records"]
    records[0]["AccountId"] = "001000000000999AAA"
    (run_dir / "environment.json").write_text(json.dumps(state))
    code, text = judge(capsys, str(run_dir), "--judge", "state")
    assert code == 0 and "FAIL (state)" in text and "AccountId" in text, text
    # The reset removed the landed contact.
    assert m["environment"]["reset"]["deleted"] == 1
    assert "Contact" not in org.data() and org.data()["Account"] == {acme: {"Id": acme, **SEEDED_ACCOUNT}}


def test_two_concurrent_runs_lease_different_orgs(sf, tmp_path):
    """Two `clawrec run` processes at once: each gets its own org, each org is reset and released."""
    from tests.pipeline.helpers import spawn_cli

    procs = [spawn_cli([str(SPEC), "--agent", "command", "--agent-cmd", agent_cmd("lead", "--lead-only"),
                        "--headless", "--runs-dir", str(tmp_path / f"runs{i}")]) for i in range(2)]
    results = [p.communicate(timeout=240) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err for _, err in results]
    manifests = [manifest(Path(out.strip().splitlines()[-1])) for out, _ in results]
    assert [m["status"] for m in manifests] == ["intercepted", "intercepted"]
    assert {m["environment"]["org"] for m in manifests} == {o.username for o in sf.orgs.values()}
    for m in manifests:
        org = next(o for o in sf.orgs.values() if o.username == m["environment"]["org"])
        assert m["environment"]["reset"] == {"deleted": 0, "restored": 0, "recreated": 0}
        assert org.data() == seeded_state(org, m["environment"]["seeded"])
        assert not aura_saves(org)
    assert all(o["lease"] is None for o in json.loads(sf.pool_path.read_text())["orgs"])
