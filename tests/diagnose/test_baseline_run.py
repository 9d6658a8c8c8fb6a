"""A baseline that sends nothing is "never submitted" (issue 21 item 2): the null agent on the shop, whose page sends
its own batched GraphQL reads (Products, Recommendations) to the rule's URL on load. Diagnosed without a reference,
as a bench task is: those reads are no submission, so no "wrong value". The site's own log shows they were sent."""

from __future__ import annotations

import json
import os

from clawrec.taskfile import expand_sites
from evaluator.diagnose import diagnose
from rundir.reader import RunDir
from taskspec.load import load_spec
from tests.pipeline.helpers import jsonl
from tests.record.helpers import REPO, clawrec

SPEC = REPO / "specs" / "demo" / "shop-trail-order.yaml"


def test_the_null_agent_on_the_shop_is_never_submitted(sites, tmp_path):
    run = tmp_path / "null"
    env = {**os.environ, "CLAWREC_SITES": json.dumps(sites.urls), "CLAWREC_NULL_IDLE_S": "2"}
    res = clawrec("run", str(SPEC), "--agent", "null", "--headless", "--no-judge", "--run-dir", str(run), env=env)
    assert res.returncode == 0, res.stderr
    reads = [r for r in jsonl(run, "http.jsonl") if r.get("method") == "POST" and r["url"].endswith("/graphql")]
    assert reads and not jsonl(run, "interceptions.jsonl"), reads  # the page's reads went out; nothing was caught
    assert any("query" in json.dumps(r["body"]) for r in reads)
    # as the bench diagnoses a run of a task whose spec names no reference (clawrec/bench/judging.py)
    d = diagnose(RunDir(run), None, expand_sites(load_spec(SPEC), sites.urls))
    assert d.category == "never_submitted" and d.headline().startswith("never submitted: "), d.headline()
    assert json.loads((run / "diagnosis.json").read_text())["category"] == "never_submitted"
