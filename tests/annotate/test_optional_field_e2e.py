"""Safety of annotated specs, end to end: a recorded human run is annotated, the real interceptor runs with that spec
in real Chromium against the local sites, and a page sends the same submission with one optional field left out.

Before the fix `clawrec annotate` required every payload leaf, so such a submission did not match and was continued
to the site. The truth is the site server's own log: the submission must not be there, and interceptions.jsonl must
hold it. A request the person also sent to the same URL + method (a look-alike) must still reach the site.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
import shutil
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from clawrec.cli import main
from clawrec.taskfile import expand_sites
from taskspec import annotate as A
from taskspec import match
from interceptor.core import Interceptor
from taskspec.payload import Body
from taskspec.load import load_spec
from recorder.browser import launch_browser
from rundir.records import INTERCEPTIONS
from rundir.records import read_jsonl as _read_jsonl
from rundir.redact import mask_fields

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "runs" / "real"
FETCH = """async ([url, body]) => {
  try { const r = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json"},
                                    body: JSON.stringify(body)}); return r.status; }
  catch (e) { return "failed: " + e.message; }
}"""


def _shop_look_alike(run: Path, marker: str) -> Any:
    """The person's own AddToCart batch (a POST to /graphql like the order), marked so the site log can find it."""
    for rec in read_jsonl(run / "http.jsonl"):
        value = (rec.get("body") or {}).get("value")
        if isinstance(value, list) and value and value[0].get("operationName") == "AddToCart":
            value = copy.deepcopy(value)
            value[0]["variables"]["marker"] = marker
            return value
    raise AssertionError("the shop reference run has no AddToCart request")


# site, terminal path, the optional field the agent leaves out, where the unique marker goes, the look-alike
def read_jsonl(path: Path) -> list[dict[str, Any]]:
    records, bad = _read_jsonl(path)
    assert not bad, f"{path}: corrupt lines {bad}"
    return records


CASES = {
    "shop": ("shop", "graphql", "0.variables.input.couponCode", "0.variables.input.email", _shop_look_alike),
    "travel": ("travel", "api/bookings", "contact.phone", "contact.email", None),
}


def _node(value: Any, path: str) -> tuple[Any, str]:
    *head, last = path.split(".")
    for part in head:
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value, last


def _old_fields(payload: Any) -> tuple[str, ...]:
    """What the old default required: every non-volatile leaf of the payload (the GraphQL operation's, if any)."""
    body = A.graphql_element(payload) if isinstance(payload, list) else payload
    pairs = [(p, v) for p, v in A.leaves(body) if p.split(".", 1)[0] not in A.GRAPHQL_SKIP]
    return tuple(p for p, v in pairs if not A.token_reason(p, v))


@pytest.mark.parametrize("case", sorted(CASES))
def test_submission_without_an_optional_field_is_caught_not_sent(case, sites, tmp_path, capsys):
    from playwright.async_api import async_playwright

    site, path, optional, marker_at, look_alike = CASES[case]
    run = tmp_path / "human-run"
    shutil.copytree(REAL / ("shop" if site == "shop" else site) / "reference", run)
    spec_path = tmp_path / "specs" / f"{case}-annotated.yaml"
    assert main(["annotate", str(run), "--out", str(spec_path), "--instruction", "Do the task"]) == 0
    capsys.readouterr()
    spec = expand_sites(load_spec(spec_path), sites.urls)
    rule = spec.intercept[0]
    url = sites.urls[site] + path

    marker = f"annotate-{uuid.uuid4().hex[:12]}@example.com"
    submission = copy.deepcopy(read_jsonl(run / INTERCEPTIONS)[0]["body"])
    node, key = _node(submission, optional)
    del node[key]
    node, key = _node(submission, marker_at)
    node[key] = marker
    # the old default rule would have continued this submission to the site; the annotated one catches it
    old_rule = dataclasses.replace(rule, fields=_old_fields(read_jsonl(run / INTERCEPTIONS)[0]["body"]))
    assert optional.removeprefix("0.") in old_rule.fields
    assert not match.matches(old_rule, "POST", url, Body("json", submission))
    assert match.matches(rule, "POST", url, Body("json", submission))
    other = look_alike(run, marker) if look_alike else None

    browser = launch_browser(headless=True)
    out = tmp_path / "run"

    async def drive() -> tuple[Any, Any, Interceptor]:
        icpt = Interceptor(spec, out, files=list(spec.files))
        await icpt.attach(browser.ws_url)
        try:
            async with async_playwright() as p:
                pw = await p.chromium.connect_over_cdp(browser.http_url)
                page = await pw.contexts[0].new_page() if pw.contexts else await (await pw.new_context()).new_page()
                await page.goto(sites.urls[site], timeout=60_000)
                sent = await page.evaluate(FETCH, [url, submission])
                other_status = await page.evaluate(FETCH, [url, other]) if other is not None else None
                await pw.close()
        finally:
            await icpt.close()
        return sent, other_status, icpt

    start = time.time()
    try:
        sent, other_status, icpt = asyncio.run(drive())
    finally:
        browser.close()
    assert icpt.failure is None
    assert str(sent).startswith("failed"), sent  # blocked: the page never got an answer
    if other is not None:  # the look-alike reached the site (its own log says so)
        assert isinstance(other_status, int), other_status
        sites.wait_for(lambda r: r["t"] >= start and marker in (r.get("body") or "") and '"AddToCart"' in r["body"],
                       timeout=30)
    port = int(sites.urls[site].rstrip("/").rsplit(":", 1)[1])
    arrived = [r for r in sites.records() if r["t"] >= start and r.get("port") == port and r["path"] == "/" + path
               and marker in (r.get("body") or "") and '"AddToCart"' not in r["body"]]
    assert arrived == []
    caught = read_jsonl(out / INTERCEPTIONS)
    assert len(caught) == 1 and caught[0]["url"] == url and caught[0]["method"] == "POST"
    node, key = _node(caught[0]["body"], optional)
    assert key not in node
    node, key = _node(caught[0]["body"], marker_at)
    assert node[key] == marker
    # recorded as sent, secret-named fields (the shop's paymentToken) redacted by the one policy (rundir/redact.py)
    assert json.dumps(caught[0]["body"], sort_keys=True) == json.dumps(mask_fields(submission), sort_keys=True)
