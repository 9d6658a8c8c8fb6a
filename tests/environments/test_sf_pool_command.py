"""`clawrec sf-pool create|list|reap|limits` against the fake `sf` and the stand-in Dev Hub."""

from __future__ import annotations

import json

from clawrec.cli import main


def cli(capsys, *args: str) -> tuple[int, list[str], list[str]]:
    capsys.readouterr()
    code = main(["sf-pool", *args])
    out, err = capsys.readouterr()
    return code, out.strip().splitlines(), err.strip().splitlines()


def test_create_list_reap_limits(sf, tmp_path, capsys):
    sf.pool_path.write_text(json.dumps({"orgs": []}))
    definition = tmp_path / "scratch.json"
    definition.write_text(json.dumps({"orgName": "clawrec", "edition": "Developer"}))
    code, out, err = cli(capsys, "create", "2", "--definition", str(definition), "--dev-hub", "hub", "--days", "3")
    assert code == 0 and out[-1].startswith("clawrec: sf-pool: 2 of 2 org(s) created"), (out, err)
    orgs = json.loads(sf.pool_path.read_text())["orgs"]
    assert len(orgs) == 2 and all(o["expires"] and o["lease"] is None and o["dev_hub"] == "hub" for o in orgs)
    creates = [c for c in sf.calls() if c[:3] == ["org", "create", "scratch"]]
    assert len(creates) == 2 and all(c[c.index("-y") + 1] == "3" and c[c.index("-v") + 1] == "hub" for c in creates)

    code, out, err = cli(capsys, "limits", "--dev-hub", "hub")
    assert code == 0 and out == ["ActiveScratchOrgs: 2/3 used, 1 remaining", "DailyScratchOrgs: 2/6 used, 4 remaining"]

    # One org expired (date passed), one unreachable that answers again, one whose creation timed out.
    doc = json.loads(sf.pool_path.read_text())
    doc["orgs"][0]["expires"] = "2026-01-01"
    doc["orgs"][1]["unreachable"] = "DNS hiccup"
    doc["orgs"].append({"username": None, "alias": "clawrec-default-lost", "pool": "default", "lease": None,
                        "unreachable": "creation timed out at 2026-11-24T10:00:00Z"})
    sf.pool_path.write_text(json.dumps(doc))
    code, out, err = cli(capsys, "list")
    states = [line.split("\t")[3] for line in out[:-1]]
    assert code == 0 and states == ["expired", "unreachable", "unreachable"], out
    assert "expires 2026-01-01" in out[0] and out[-1] == f"clawrec: sf-pool: 3 org(s) in {sf.pool_path}"

    code, out, err = cli(capsys, "reap")
    gone, kept = doc["orgs"][0]["alias"], doc["orgs"][1]["alias"]
    assert code == 1, (out, err)
    assert out[:2] == [f"{gone}: deleted (expired: expired)", f"{kept}: reachable again; kept in the pool"]
    assert out[-1] == f"clawrec: sf-pool: 2 of 3 org(s) reaped in {sf.pool_path}"
    assert len(err) == 1 and err[0].startswith("clawrec: sf-pool reap: clawrec-default-lost: its creation timed out")
    left = {o["alias"]: o for o in json.loads(sf.pool_path.read_text())["orgs"]}
    assert sorted(left) == sorted([kept, "clawrec-default-lost"]) and "unreachable" not in left[kept]
    assert sf.orgs[gone].deleted and [c for c in sf.calls() if c[:3] == ["org", "delete", "scratch"]] == [
        ["org", "delete", "scratch", "-o", doc["orgs"][0]["username"], "--no-prompt", "--json"], [
            "org", "delete", "scratch", "-o", "clawrec-default-lost", "--no-prompt", "--json"]]


def test_failures_are_one_line(sf, tmp_path, capsys, monkeypatch):
    definition = tmp_path / "scratch.json"
    definition.write_text("{}")
    monkeypatch.setenv("FAKE_SF_HUB_LIMIT", "0")
    code, out, err = cli(capsys, "create", "1", "--definition", str(definition), "--dev-hub", "hub")
    assert code == 1 and err == ["clawrec: sf-pool create: org 1/1: sf org create scratch failed: "
                                 "ScratchOrgCreateError: The signup request failed because this organization has "
                                 "reached its active scratch org limit"], err
    code, out, err = cli(capsys, "limits")
    assert code == 2 and err == ["clawrec: Missing option '--dev-hub' / '-v'."], err
    monkeypatch.setenv("CLAWREC_SF_BIN", str(tmp_path / "no-sf"))
    code, out, err = cli(capsys, "limits", "--dev-hub", "hub")
    assert code == 1 and len(err) == 1 and "cannot run the Salesforce CLI" in err[0], err
