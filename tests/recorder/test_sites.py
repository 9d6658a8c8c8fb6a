"""A scripted run on each local site (sites.drivers) under the interceptor yields all five layers, lined up."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from haralyzer import HarParser
from playwright.async_api import async_playwright

from clawrec.taskfile import expand_sites, load_task
from interceptor.core import Interceptor
from rundir.records import read_jsonl
from recorder.session import Recording
from sites.drivers import drive
from tests.recorder.helpers import actions, assert_all_jsonl_parse, assert_video_covers_run, wait_for

ROOT = Path(__file__).resolve().parents[2]
TASKS = {"travel": "travel-flight-oneway", "jobs": "jobs-apply-analyst", "shop": "shop-trail-order",
         "social": "social-status-update"}


async def _run(site: str, run_dir: Path, urls: dict) -> dict:
    spec = expand_sites(load_task(str(ROOT / "specs" / "demo" / f"{TASKS[site]}.yaml")), urls)
    rec = Recording(run_dir, task_id=spec.id, spec_sha256=spec.sha256, agent="script")
    await rec.start()
    icpt = Interceptor(spec, run_dir, rec.clock, files=list(spec.files), kill_browser=rec.browser.kill)
    try:
        await icpt.attach(rec.browser.ws_url)
        rec.agent_log("assistant", f"driving {site}")
        async with async_playwright() as p:
            browser = await p.chromium.connect_over_cdp(rec.browser.http_url)
            page = browser.contexts[0].pages[0]
            page.set_default_timeout(30_000)
            await drive(site, page, urls, spec.user, {Path(f).name: f for f in spec.files})
            await asyncio.wait_for(icpt.caught.wait(), 15)
            caught_t = icpt.catches[0]["t"]
            await wait_for(lambda: any(caught_t - 2 < c["t"] <= caught_t for c in actions(run_dir, "click")),
                           what="the click that submitted")
            n = len(actions(run_dir, "click"))
            await wait_for(lambda: sum(1 for s in read_jsonl(run_dir / "screenshots/screenshots.jsonl")[0]
                                       if s["action_type"] == "click") >= n, what="a shot for every click")
            await browser.close()
    finally:
        await icpt.close()
        manifest = await rec.finalize("intercepted" if icpt.catches else "ok", "scripted run done")
    return {"manifest": manifest}


@pytest.mark.parametrize("site", sorted(TASKS))
def test_scripted_run_on_site(site, sites, tmp_path):
    out = asyncio.run(_run(site, tmp_path, sites.urls))
    manifest = out["manifest"]
    assert manifest["status"] == "intercepted", manifest["stop_reason"]
    layers = manifest["layers"]
    assert {"video", "screenshots", "http", "har", "interceptions", "agent", "actions"} <= set(layers)
    assert_video_covers_run(tmp_path / "video.mp4", manifest)
    assert_all_jsonl_parse(tmp_path)

    clicks = actions(tmp_path, "click")
    assert clicks
    for c in clicks:
        assert isinstance(c["x"], (int, float)) and isinstance(c["y"], (int, float)) and c["target"]["selector"]
        assert c["target"]["xpath"] and c["target"]["tag"]
        assert c["target"]["selector_ok"] and c["target"]["xpath_ok"], c  # checked in the page at click time
    shots, _ = read_jsonl(tmp_path / "screenshots/screenshots.jsonl")
    by_action = {}
    for s in shots:
        by_action.setdefault(s["action_seq"], []).append(s)
    assert all(len(by_action.get(c["seq"], [])) == 1 and by_action[c["seq"]][0]["path"] for c in clicks)

    # the click that submitted, its screenshot and the request it caused line up within 0.5 s
    catch = read_jsonl(tmp_path / "interceptions.jsonl")[0][0]
    before = [c for c in clicks if c["t"] <= catch["t"] + 0.05]
    submit = before[-1]
    shot = by_action[submit["seq"]][0]
    sent = [r for r in read_jsonl(tmp_path / "http.jsonl")[0] if r.get("type") == "request"
            and r["url"] == catch["url"] and r["method"] == catch["method"]]
    caught = min(sent, key=lambda r: abs(r["started"] - catch["t"]))  # the one that was caught, not an earlier try
    sent_t = caught["wall_time"] - manifest["t0"]  # when the browser issued it (CDP wallTime), on the run clock
    assert -0.05 <= sent_t - submit["t"] <= 0.5, (submit["t"], sent_t)
    assert abs(shot["t"] - submit["t"]) <= 0.5, (submit["t"], shot["t"])

    har = HarParser(json.loads((tmp_path / "http.har").read_text()))
    assert sum(len(p.entries) for p in har.pages) + len(har.har_data.get("entries", [])) > 0
    assert read_jsonl(tmp_path / "agent.jsonl")[0][0]["content"] == f"driving {site}"
