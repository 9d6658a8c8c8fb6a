"""Site faults of the soak (issue 36): runs on a site that never answers, answers 500, floods the console, floods a WebSocket or
sends a 200 MB response, and runs whose folder is a nearly full tmpfs, each end finalized with a status, with no
terminal request reaching the site and no process of theirs left (every process carries the test's tag). A site that
never answers is the task's outcome, named in the stop reason, not a crash the bench would retry as infrastructure."""

from __future__ import annotations

import json
import os
import uuid

from bench.faults_sites import run_site_faults
from bench.soak import tagged


def _check(report: dict, faults: tuple[str, ...]) -> None:
    assert report["terminal_requests_reached_site"] == []
    assert report["injected"] == {f: 1 for f in faults}, report
    assert report["survived"] == report["injected"], report["statuses"]


def test_runs_on_broken_sites_end_finalized(tmp_path):
    tag = uuid.uuid4().hex
    faults = ("hang", "console", "ws", "big")
    report = run_site_faults(tmp_path, faults, {**os.environ, "CLAWREC_SOAK_TAG": tag})
    _check(report, faults)
    assert tagged(tag) == []
    assert report["statuses"]["site-fault-hang"] != "crashed", report["statuses"]
    hang = json.loads(next((tmp_path / "bench" / "runs" / "site-fault-hang").glob("*/*/manifest.json")).read_text())
    assert "did not answer within" in hang["stop_reason"] and "/hang" in hang["stop_reason"], hang["stop_reason"]


def test_a_nearly_full_disk_ends_runs_finalized(tmp_path):
    tag = uuid.uuid4().hex
    report = run_site_faults(tmp_path, ("500",), {**os.environ, "CLAWREC_SOAK_TAG": tag}, disk_full=True)
    _check(report, ("500",))
    assert report["layers_lost_unsaid"] == {}, report  # a layer cut by the full disk is named, never silent
    assert tagged(tag) == []
    assert not os.path.ismount(tmp_path / "disk"), "the small disk stayed mounted"
