"""`clawrec run` on scratch-org tasks that go wrong: bad options (exit 2, one line), no free org (exit 1, one line,
no browser), an agent that crashes after changing the org (reset and release all the same)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.environments.helpers import write_spec
from tests.environments.test_scratch_run import AGENT, SEEDED_ACCOUNT
from tests.pipeline.helpers import manifest, run_cli


def one_line(err: list[str]) -> str:
    assert len(err) == 1 and err[0].startswith("clawrec: "), err
    return err[0]


@pytest.mark.parametrize("env, needle", [
    ({"seed": [{"attributes": {"type": "Account", "referenceId": "A"}, "OwnerId": "@Nobody"}]},
     "environment.seed.0.OwnerId: '@Nobody' names no earlier record's referenceId"),
    ({"pooll": "default"}, "environment.pooll: unknown key; did you mean 'pool'?"),
    ({"path": "lightning/o/Lead/new"}, "environment.path: must start with '/'"),
    ({"track": "Lead"}, "environment.track: must be a list of strings, got a string"),
    ({"days": 3}, "environment.days: only used to create orgs: needs 'definition'"),
    ({"seed": "missing-plan.json"}, "environment.seed: plan file"),
    ({"definition": "def.json", "wait_min": 1}, "environment.wait_min: must be at least 2"),
    ({"checks": [{"soql": "SELECT COUNT() FROM Lead", "fields": {"Email": "x"}}]},
     "environment.checks.0.fields: a SELECT COUNT() query returns no rows"),
    ({"checks": [{"soql": "SELECT Id FROM Contact WHERE AccountId = '@Nope'", "count": 1}]},
     "environment.checks.0.soql: '@Nope' names no seeded record's referenceId"),
])
def test_bad_options_exit_2_with_one_line(sf, tmp_path, capsys, env, needle):
    spec = write_spec(tmp_path, **env)
    code, out, err = run_cli([str(spec), "--agent", "command", "--agent-cmd", "true", "--headless",
                              "--runs-dir", str(tmp_path / "runs")], capsys)
    line = one_line(err)
    assert code == 2 and str(spec) in line and needle in line, line
    assert not (tmp_path / "runs").exists() and sf.calls() == []


def test_no_free_org_is_one_line_exit_1(sf, tmp_path, capsys):
    sf.pool_file(sf.pool_path, aliases=[])
    code, out, err = run_cli([str(write_spec(tmp_path)), "--agent", "command", "--agent-cmd", "true", "--headless",
                              "--runs-dir", str(tmp_path / "runs")], capsys)
    line = one_line(err)
    assert code == 1 and "no free org in pool 'default' (0 org(s)" in line and str(sf.pool_path) in line
    (run_dir,) = (tmp_path / "runs" / "sf-create-lead").iterdir()
    m = manifest(run_dir)
    assert m["status"] == "crashed" and "no free org" in m["stop_reason"]
    assert not (run_dir / "actions.jsonl").exists()  # no browser was started


def test_agent_crash_still_resets_and_releases(sf, tmp_path, capsys):
    code, out, err = run_cli([str(write_spec(tmp_path)), "--agent", "command", "--agent-cmd",
                              f"{sys.executable} {AGENT} lead --crash", "--headless", "--runs-dir", str(tmp_path / "runs")],
                             capsys)
    assert code == 0, err
    m = manifest(Path(out[-1]))
    assert m["status"] == "agent_error", m["stop_reason"]
    org = sf.orgs["pool1"]
    assert [(e["path"].split("?")[0], e["status"]) for e in org.log if e["auth"] == "cookie" and e["method"] == "POST"
            ] == [("/services/data/v62.0/sobjects/Lead/", 401), ("/aura", 200), ("/aura", 200)]
    assert m["environment"]["reset"] == {"deleted": 1, "restored": 1, "recreated": 0}
    data = org.data()
    assert [r["LastName"] for r in data["Contact"].values()] == ["Babbage"]
    assert [{k: r[k] for k in SEEDED_ACCOUNT} for r in data["Account"].values()] == [SEEDED_ACCOUNT]
    assert all(o.get("lease") is None for o in json.loads(sf.pool_path.read_text())["orgs"])


def test_failed_reset_is_exit_1_and_the_org_dirty(sf, tmp_path, capsys):
    sf.orgs["pool1"].fail_deletes = True  # the agent's Contact cannot be deleted
    code, out, err = run_cli([str(write_spec(tmp_path)), "--agent", "command", "--agent-cmd",
                              f"{sys.executable} {AGENT} lead", "--headless", "--runs-dir", str(tmp_path / "runs")], capsys)
    line = one_line(err[1:])  # after the "agent started" progress line
    assert code == 1 and "reset: 1 of 1 deletions failed (DELETE_FAILED" in line, line
    (run_dir,) = (tmp_path / "runs" / "sf-create-lead").iterdir()
    m = manifest(run_dir)
    assert m["status"] == "intercepted" and "DELETE_FAILED" in m["environment"]["error"]
    entry = next(o for o in json.loads(sf.pool_path.read_text())["orgs"] if o["alias"] == "pool1")
    assert entry["lease"] is None and "DELETE_FAILED" in entry["dirty"]
