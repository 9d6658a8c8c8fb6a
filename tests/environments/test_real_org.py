"""Optional: the shipped lead task on a REAL scratch org (the only test that leaves this machine).

Runs only when CLAWREC_SF_DEVHUB names a Dev Hub authorized in the Salesforce CLI (`sf`, or $CLAWREC_SF_BIN;
@salesforce/plugin-org >= 5.11) and CLAWREC_SF_REFERENCE a recorded reference run of specs/salesforce/sf-create-lead
(`clawrec record`, a person creating the lead in Lightning). Otherwise it is skipped, and `-ra` shows why. It creates
a one-day scratch org for a private pool, replays the reference with `--agent replay`, and checks what the
stand-ins promise: the lead save caught in whatever shape this release sends, PASS by the payload judge from the
caught shape and by the state judge (no lead in the org before the reset), the org reset; the org is then deleted.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml

from clawrec.cli import main
from tests.pipeline.helpers import manifest, run_cli

SPEC = Path(__file__).resolve().parents[2] / "specs" / "salesforce" / "sf-create-lead.yaml"
DEVHUB = os.environ.get("CLAWREC_SF_DEVHUB")

pytestmark = pytest.mark.skipif(not DEVHUB, reason="set CLAWREC_SF_DEVHUB (an authorized Dev Hub) and "
                                "CLAWREC_SF_REFERENCE (a recorded reference run) to run against a real scratch org")


def test_lead_task_replayed_on_a_real_scratch_org(tmp_path, monkeypatch, capsys):
    reference = os.environ.get("CLAWREC_SF_REFERENCE")
    if not reference or not (Path(reference) / "manifest.json").is_file():
        pytest.fail(f"CLAWREC_SF_DEVHUB is set but CLAWREC_SF_REFERENCE ({reference!r}) is not a recorded run")
    (tmp_path / "scratch-def.json").write_text(json.dumps({"orgName": "clawrec real-org test",
                                                           "edition": "Developer"}))
    doc = yaml.safe_load(SPEC.read_text())
    doc["environment"].update(definition="scratch-def.json", dev_hub=DEVHUB, days=1, wait_min=15,
                              pool="clawrec-real-org-test")
    spec = tmp_path / "sf-create-lead.yaml"
    spec.write_text(yaml.safe_dump(doc, sort_keys=False))
    monkeypatch.setenv("CLAWREC_SF_POOL", str(tmp_path / "pool.json"))
    try:
        code, out, err = run_cli([str(spec), "--agent", "replay", "--from", reference, "--headless",
                                  "--runs-dir", str(tmp_path / "runs")], capsys)
        assert code == 0, err
        run_dir = Path(out[-1])
        m = manifest(run_dir)
        assert m["status"] == "intercepted", m["stop_reason"]
        assert m["environment"]["released"] is True and "error" not in m["environment"]
        for kind in ("payload", "state"):
            assert main(["judge", str(run_dir), "--judge", kind]) == 0
            assert json.loads((run_dir / "verdict.json").read_text())["verdict"] == "PASS", kind
    finally:
        assert main(["sf-pool", "reap", "--pool", "clawrec-real-org-test", "--dirty"]) in (0, 1)
        pool = json.loads((tmp_path / "pool.json").read_text()) if (tmp_path / "pool.json").exists() else {}
        for org in pool.get("orgs", []):  # reap deletes only expired/unreachable/dirty ones: delete the rest too
            if org.get("username"):
                subprocess.run([os.environ.get("CLAWREC_SF_BIN", "sf"), "org", "delete", "scratch", "-o",
                                org["username"], "--no-prompt", "--json"], capture_output=True, timeout=600)
