"""One field-path meaning (issue 11): a form body with bracket keys, JSON held in a string field (Salesforce Aura's
`message=`) and a batched GraphQL body whose field is only in `variables` are each caught by the live interceptor
on `fields:` (the site never receives them) AND compared by the payload judge through the real CLI (PASS with the
right value in `expect`, FAIL with a wrong one), on the recorded run."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from clawrec.cli import main
from tests.pipeline.helpers import jsonl, manifest
from tests.pipeline.tinysite import TinySite

AGENT = Path(__file__).resolve().parent / "agent_scripts" / "post_agent.py"
FORM = "application/x-www-form-urlencoded"
AURA_MESSAGE = json.dumps({"actions": [{"descriptor": "aura://RecordUiController/ACTION$createRecord",
                                        "params": {"recordInput": {"apiName": "Lead",
                                                                   "fields": {"Email": "alex@example.com"}}}}]})
GRAPHQL = json.dumps([
    {"operationName": "TrackEvent", "query": "mutation TrackEvent($e: String) { track(e: $e) }",
     "variables": {"e": "view"}},
    {"operationName": "PlaceOrder", "query": "mutation PlaceOrder($order_id: ID!) { place(id: $order_id) { ok } }",
     "variables": {"order_id": "A-17"}},
])
CASES = {
    # name: (content type, body, rule lines, the expected field, its value)
    "bracket-form": (FORM, "cabin=economy&passengers%5B0%5D%5Bemail%5D=alex%40example.com",
                     "fields: [passengers.0.email]", "passengers.0.email", "alex@example.com"),
    "json-in-string": (FORM, f"message={quote(AURA_MESSAGE)}&aura.token=t0k",
                       "fields: [message.actions.0.params.recordInput.fields.Email]\n"
                       "    equals: {message.actions.*.params.recordInput.apiName: Lead}",
                       "message.actions.0.params.recordInput.fields.Email", "alex@example.com"),
    "graphql-variables": ("application/json", GRAPHQL, "fields: [order_id]\n    equals: {operationName: PlaceOrder}",
                          "order_id", "A-17"),
}


def _spec(folder: Path, site: TinySite, rule: str, field: str, value: str, name: str) -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(f"""version: 1
id: {name}
category: daily
instruction: Submit the form.
start_url: {site.url}
limits: {{time_s: 60, steps: 20}}
intercept:
  - url: "{site.url}api/submit"
    method: POST
    {rule}
expect: {{{field}: {json.dumps(value)}}}
""")
    return path


@pytest.mark.parametrize("case", sorted(CASES))
def test_caught_live_and_judged_offline(case, tmp_path, capsys):
    content_type, body, rule, field, value = CASES[case]
    with TinySite() as site:
        spec = _spec(tmp_path, site, rule, field, value, case)
        cmd = shlex.join([sys.executable, str(AGENT), "/api/submit", content_type, body])
        code = main(["run", str(spec), "--agent", "command", "--agent-cmd", cmd, "--headless", "--no-judge",
                     "--runs-dir", str(tmp_path / "runs")])
        out, err = capsys.readouterr()
        assert code == 0, err
        assert site.posts("/api/submit") == []  # the site's own log: it never arrived
    run = Path(out.strip().splitlines()[-1])
    assert manifest(run)["status"] == "intercepted"
    assert len(jsonl(run, "interceptions.jsonl")) == 1

    for want, verdict in ((value, "PASS"), ("someone-else", "FAIL")):
        (tmp_path / verdict).mkdir()
        judged = _spec(tmp_path / verdict, site, rule, field, want, case)
        assert main(["judge", str(run), "--spec", str(judged)]) == 0
        capsys.readouterr()
        v = json.loads((run / "verdict.json").read_text())
        assert v["verdict"] == verdict, v
        cond = next(c for c in v["conditions"] if c["condition"].startswith(f"Field {field} equals"))
        assert cond["met"] is (verdict == "PASS")
        assert "missing" not in cond.get("detail", ""), cond
