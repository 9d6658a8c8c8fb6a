"""The shipped scratch-org specs: `salesforce: {save: Lead}` catches a lead save in every shape Lightning sends it
(Aura createRecord, Aura saveRecord, UI API) on any org host and nothing else (an inline Account edit, a Contact,
a read, REST that the browser's session cannot use); an edit that names no object (Aura updateRecord, UI API PATCH)
is tied to it by its record id's key prefix; `expect` reads the record's fields from the caught shape; a
`sf data import tree` plan file seeds the same records as the inline seed."""

from __future__ import annotations

import asyncio
import json
from urllib.parse import urlencode

import yaml

from clawrec.environments import create_environment
from taskspec.load import load_spec
from taskspec.match import first_match
from taskspec.payload import decode
from taskspec.salesforce_save import record_value, saved_record
from tests.environments.helpers import SPEC, write_spec

HOSTS = ("https://acme-dev-ed.develop.lightning.force.com", "https://ruby-fox-1234.scratch.lightning.force.com",
         "http://127.0.0.1:41234")
FORM = "application/x-www-form-urlencoded;charset=UTF-8"


def aura(params: dict, descriptor: str = "aura://RecordUiController/ACTION$createRecord") -> bytes:
    message = {"actions": [{"id": "1;a", "descriptor": "aura://ListUiController/ACTION$getListInfo", "params": {}},
                           {"id": "2;a", "descriptor": descriptor, "callingDescriptor": "UNKNOWN", "params": params}]}
    return urlencode({"message": json.dumps(message), "aura.context": "{}", "aura.token": "eyJ.t"}).encode()


def caught(spec, method: str, url: str, body: bytes = b"", ctype: str = FORM):
    return first_match(spec.intercept, method, url, decode(body, ctype))


def test_rules_catch_the_lead_save_in_every_shape_on_any_org_host():
    spec = load_spec(SPEC)
    create = aura({"recordInput": {"apiName": "Lead", "fields": {"FirstName": "Ada", "Email": "a@b.example"}}})
    save = aura({"recordRep": {"apiName": "Lead", "fields": {"FirstName": {"value": "Ada"}}}}, "x$saveRecord")
    edit = aura({"recordRep": {"id": "001000000000001AAA", "apiName": "Account",
                               "fields": {"Phone": {"value": "000"}}}}, "x$saveRecord")
    contact = aura({"recordInput": {"apiName": "Contact", "fields": {"LastName": "X"}}})
    ui = json.dumps({"apiName": "Lead", "fields": {"FirstName": "Ada"}}).encode()
    for host in HOSTS:
        assert caught(spec, "POST", f"{host}/aura?r=7&aura.RecordUi.createRecord=1", create).index == 0
        assert caught(spec, "POST", f"{host}/aura?r=8&other.saveRecord=1", save).index == 1
        assert caught(spec, "POST", f"{host}/services/data/v62.0/ui-api/records", ui, "application/json").index == 2
        assert caught(spec, "PATCH", f"{host}/services/data/v62.0/ui-api/records/00Q000000000001AAA",
                      b'{"fields":{"Email":"x"}}', "application/json").index == 3
        assert caught(spec, "POST", f"{host}/aura?r=9", edit) is None  # the seeded Account's inline edit
        assert caught(spec, "POST", f"{host}/aura?r=9", contact) is None
        assert caught(spec, "GET", f"{host}/aura?r=7", create) is None
        assert caught(spec, "PATCH", f"{host}/services/data/v62.0/ui-api/records/001000000000001AAA",
                      b'{"fields":{}}', "application/json") is None
        assert caught(spec, "POST", f"{host}/services/data/v62.0/ui-api/records",
                      ui.replace(b"Lead", b"Case"), "application/json") is None
    # expect names record fields: read from whichever shape was caught
    assert record_value(decode(create, FORM).value, "Email") == "a@b.example"
    assert record_value(decode(save, FORM).value, "FirstName") == "Ada"
    assert saved_record(decode(ui, "application/json").value) == ("ui-api", {"FirstName": "Ada"})
    assert saved_record(decode(edit, FORM).value) == ("aura-saveRecord", {"Phone": "000"})


EDIT_SPEC = SPEC.parent / "sf-edit-account-phone.yaml"
UPDATE = "aura://RecordUiController/ACTION$updateRecord"
ACME, LEAD = "001000000000001AAA", "00Q000000000001AAA"


def test_an_edit_naming_no_object_is_tied_to_it_by_its_record_id():
    """Aura updateRecord (params.recordId, recordInput without apiName) and UI API PATCH carry only the record's id:
    its key prefix (001 Account, 00Q Lead) decides, within one Aura action (a batched read of an Account with a
    Lead's save is no Account save)."""
    edit, lead = load_spec(EDIT_SPEC), load_spec(SPEC)
    by_id = aura({"recordId": ACME, "recordInput": {"allowSaveOnDuplicate": False, "fields": {"Phone": "+1 555"}},
                  "clientOptions": {}}, UPDATE)
    id_field = aura({"recordInput": {"apiName": None, "fields": {"Id": ACME, "Phone": "+1 555"}}}, "x$updateRecord")
    patch = json.dumps({"apiName": None, "fields": {"Phone": "+1 555"}}).encode()
    batched = urlencode({"message": json.dumps({"actions": [
        {"id": "1;a", "descriptor": "aura://RecordUiController/ACTION$getRecordWithFields",
         "params": {"recordId": ACME, "fields": ["Account.Phone"]}},
        {"id": "2;a", "descriptor": UPDATE, "params": {"recordId": LEAD, "recordInput": {"fields": {"Email": "x"}}}},
    ]}), "aura.token": "t"}).encode()
    read = aura({"recordId": ACME, "fields": ["Account.Phone"]}, "aura://RecordUiController/ACTION$getRecordWithFields")
    for host in HOSTS:
        url = f"{host}/aura?r=4&aura.RecordUi.updateRecord=1"
        assert caught(edit, "POST", url, by_id).index == 4
        assert caught(edit, "POST", url, id_field).index == 5
        assert caught(edit, "PATCH", f"{host}/services/data/v62.0/ui-api/records/{ACME}", patch,
                      "application/json").index == 3
        assert caught(edit, "POST", url, batched) is None and caught(edit, "POST", url, read) is None
        assert caught(lead, "POST", url, by_id) is None and caught(lead, "POST", url, id_field) is None
        assert caught(lead, "PATCH", f"{host}/services/data/v62.0/ui-api/records/{ACME}", patch,
                      "application/json") is None
        assert caught(lead, "POST", url, batched).index == 4  # the Lead's own update is a Lead save
    # expect names record fields: read from the update's shape
    assert saved_record(decode(by_id, FORM).value) == ("aura-updateRecord", {"Phone": "+1 555"})
    assert record_value(decode(id_field, FORM).value, "Phone") == "+1 555"
    assert saved_record(decode(patch, "application/json").value) == ("ui-api", {"Phone": "+1 555"})
    assert saved_record(decode(batched, FORM).value) == ("aura-updateRecord", {"Email": "x"})
    assert saved_record(decode(read, FORM).value) is None


def test_plan_file_seeds_like_the_inline_seed(sf, tmp_path):
    inline = yaml.safe_load(SPEC.read_text())["environment"]["seed"]
    by_type: dict[str, list] = {}
    for rec in inline:
        by_type.setdefault(rec["attributes"]["type"], []).append(rec)
    plan = []
    for sobject, records in by_type.items():
        (tmp_path / "data").mkdir(exist_ok=True)
        (tmp_path / "data" / f"{sobject}.json").write_text(json.dumps({"records": records}))
        plan.append({"sobject": sobject, "saveRefs": True, "resolveRefs": True, "files": [f"{sobject}.json"]})
    (tmp_path / "data" / "plan.json").write_text(json.dumps(plan))
    sf.pool_file(sf.pool_path, aliases=["pool1"])

    async def prepare_and_clean(path):
        env = create_environment(load_spec(path))
        prepared = await env.prepare("run")
        await env.cleanup()
        return prepared

    prepared = asyncio.run(prepare_and_clean(write_spec(tmp_path, seed="data/plan.json")))
    data = sf.orgs["pool1"].data()
    ids = prepared.info["seeded"]
    assert prepared.info["seed_created"] == 2
    assert data["Account"][ids["AcmeRef"]]["Name"] == "Acme Analytical Engines"
    assert data["Contact"][ids["BabbageRef"]]["AccountId"] == ids["AcmeRef"]


def test_a_domain_that_never_resolves_is_one_line():
    import pytest

    from clawrec.environments import EnvironmentFailed
    from clawrec.environments.salesforce import wait_resolvable

    asked: list[str] = []

    async def nxdomain(host, port):  # a resolver answering "not found" (no DNS traffic leaves the machine)
        asked.append(host)
        raise OSError(-2, "Name or service not known")

    from clawrec.environments.salesforce import lightning_url

    # where the browser lands after the frontdoor: awaited too for a new org
    assert lightning_url("https://ruby-fox-1234.scratch.my.salesforce.com") == \
        "https://ruby-fox-1234.scratch.lightning.force.com"
    assert lightning_url("https://acme.my.salesforce.com") == "https://acme.lightning.force.com"
    assert lightning_url("http://127.0.0.1:41234") is None
    asyncio.run(wait_resolvable("http://127.0.0.1:9/", 1))
    with pytest.raises(EnvironmentFailed, match=r"domain new-org\.my\.salesforce\.com did not resolve within 0\.3 s"):
        asyncio.run(wait_resolvable("https://new-org.my.salesforce.com/", 0.3, every=0.1, resolve=nxdomain))
    assert len(asked) >= 2 and set(asked) == {"new-org.my.salesforce.com"}


def test_bad_helper_and_terminal_are_one_line_each(tmp_path):
    import pytest

    from taskspec.load import SpecError

    doc = yaml.safe_load(SPEC.read_text())
    doc.update(terminal="lnd", intercept=[{"salesforce": {"save": ["Lead", "bad name"]}}, {"salesforce": {"sav": 1}}])
    path = tmp_path / "sf-create-lead.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    with pytest.raises(SpecError) as err:
        load_spec(path)
    assert sorted(p.split(": ", 1)[1] for p in map(str, err.value.problems)) == [
        "intercept.0.salesforce.save.1: must be an sObject API name (Lead, Custom__c), got 'bad name'",
        "intercept.1.salesforce.sav: unknown key; did you mean 'save'?",
        "intercept.1.salesforce.save: missing required field",
        "terminal: must be one of block, land, got 'lnd'"]
