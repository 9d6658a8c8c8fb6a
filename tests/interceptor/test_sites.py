"""Zero false positives: the four demo sites driven end to end with interception on (real Chromium, the sites'
truth log as the judge). Every terminal submission is caught and never reaches a server; every other request
(>= 500 in total) reaches its server and none is in interceptions.jsonl or failed by the interceptor."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from pathlib import Path

import pytest

from clawrec.taskfile import expand_sites
from interceptor.core import Interceptor
from taskspec.load import load_spec
from recorder.browser import launch_browser
from rundir.records import HTTP, INTERCEPTIONS, read_jsonl

ROOT = Path(__file__).resolve().parents[2]
TASKS = {"travel": "travel-flight-oneway", "jobs": "jobs-apply-analyst", "shop": "shop-trail-order",
         "social": "social-status-update", "social-share": "social-share-post"}
TERMINAL = {"travel": "/api/bookings", "jobs": "/jobs/1042/apply/submit", "shop": "/graphql",
            "social": "/api/posts", "social-share": "/api/shares"}
ROUNDS = 5


def is_terminal(task: str, rec: dict) -> bool:
    if rec["method"] != "POST" or rec["path"] != TERMINAL[task]:
        return False
    return task != "shop" or '"PlaceOrder"' in rec.get("body", "")


def _union_spec(urls: dict):
    """One spec holding every demo task's rules: more rules can only add false positives, so this is stricter."""
    specs = [expand_sites(load_spec(ROOT / "specs" / "demo" / f"{TASKS[t]}.yaml"), urls) for t in TASKS]
    rules = [dataclasses.replace(r, index=i) for i, r in enumerate(r for s in specs for r in s.intercept)]
    files = tuple(dict.fromkeys(f for s in specs for f in s.files))
    return dataclasses.replace(specs[0], intercept=tuple(rules), files=files), {t: s for t, s in zip(TASKS, specs)}


async def _drive(pw_browser, task: str, spec, urls: dict) -> None:
    from sites.drivers import drive

    ctx = await pw_browser.new_context()
    try:
        page = await ctx.new_page()
        page.set_default_timeout(30_000)
        await drive(task, page, urls, spec.user, {p.name: p for p in spec.files})
    finally:
        await ctx.close()


def test_sites_end_to_end_no_false_positives(sites, tmp_path):
    from playwright.async_api import async_playwright

    browser = launch_browser(headless=True)
    union, specs = _union_spec(sites.urls)

    async def run() -> list[dict]:
        icpt = Interceptor(union, tmp_path, files=list(union.files))
        await icpt.attach(browser.ws_url)
        try:
            async with async_playwright() as p:
                pw_browser = await p.chromium.connect_over_cdp(browser.http_url)
                for _ in range(ROUNDS):  # the five tasks side by side, each in its own context
                    await asyncio.gather(*(_drive(pw_browser, t, specs[t], sites.urls) for t in TASKS))
        finally:
            await icpt.close()
        assert icpt.failure is None
        return icpt.catches

    start = time.time()
    try:
        catches = asyncio.run(run())
    finally:
        browser.close()
    records = [r for r in sites.records() if r["t"] >= start]
    for task in TASKS:
        mine = [c for c in catches if c["url"].endswith(TERMINAL[task])]
        if task == "shop":
            mine = [c for c in mine if any(op.get("operationName") == "PlaceOrder" for op in c["body"])]
        assert len(mine) >= ROUNDS, f"{task}: {len(mine)} of {ROUNDS} terminal submissions caught"
    assert len(catches) == len(TASKS) * ROUNDS, [c["url"] for c in catches]  # nothing else was caught
    terminal = [r for r in records if any(is_terminal(t, r) for t in TASKS)]
    assert terminal == [], "a terminal submission reached a server"
    print(f"non-terminal requests that reached the servers: {len(records)}")
    assert len(records) >= 500
    http, bad = read_jsonl(tmp_path / HTTP)
    assert not bad
    caught_ids = {c.get("network_id") for c in catches}
    blocked = [h for h in http if h.get("type") == "request" and "BLOCKED_BY_CLIENT" in str(h.get("error"))
               and h["id"] not in caught_ids]
    assert blocked == [], "the interceptor failed a request it did not catch"
