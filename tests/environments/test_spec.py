"""The shipped scratch-org spec: its rules catch a lead save on any org host (REST or Lightning's Aura action) and
nothing else; a `sf data import tree` plan file seeds the same records as the inline seed."""

from __future__ import annotations

import asyncio
import json

import yaml

from clawrec.environments import create_environment
from taskspec.check import load_spec
from tests.environments.helpers import SPEC, write_spec

HOSTS = ("https://acme-dev-ed.develop.my.salesforce.com", "https://ruby-fox-1234.scratch.my.salesforce.com",
         "http://127.0.0.1:41234")
AURA = ("https://ruby-fox-1234.scratch.lightning.force.com/aura?r=12&"
        "ui-force-components-controllers-recordGlobalValueProvider.RecordGvp.saveRecord=1")


def caught(spec, method: str, url: str) -> bool:
    return any(r.matches_url(url) and r.matches_method(method) for r in spec.intercept)


def test_rules_catch_the_lead_save_on_any_org_host():
    spec = load_spec(SPEC)
    for host in HOSTS:
        assert caught(spec, "POST", f"{host}/services/data/v62.0/sobjects/Lead/")
        assert not caught(spec, "GET", f"{host}/services/data/v62.0/sobjects/Lead/")
        assert not caught(spec, "POST", f"{host}/services/data/v62.0/sobjects/Contact/")
        assert not caught(spec, "PATCH", f"{host}/services/data/v62.0/sobjects/Lead/00Q000000000001AAA")
    assert caught(spec, "POST", AURA)
    assert not caught(spec, "POST", AURA.replace("saveRecord", "getRecord"))


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

    asyncio.run(wait_resolvable("http://127.0.0.1:9/", 1))
    with pytest.raises(EnvironmentFailed, match=r"domain new-org\.my\.salesforce\.com did not resolve within 0\.3 s"):
        asyncio.run(wait_resolvable("https://new-org.my.salesforce.com/", 0.3, every=0.1, resolve=nxdomain))
    assert len(asked) >= 2 and set(asked) == {"new-org.my.salesforce.com"}
