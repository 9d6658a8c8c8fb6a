"""Interceptor cost, measured on the local sites with real Chromium (issue 4, item 9 and acceptance):

- page-load time of the four sites' start pages: interception off / clawrec (narrowed: pauses only what can match) /
  clawrec pausing every request / Playwright `context.route('**/*')` continuing every request (the peer);
- added latency per paused request: 200 sequential fetches of a tiny loopback endpoint, per-request durations
  measured in the page, median and p95 minus the same with interception off.
Modes run in blocks, repeated ABCD ABCD to spread drift; other engineers' load on the machine is noise we report
(the raw samples are in the returned dict's `samples` counts)."""

from __future__ import annotations

import asyncio
import dataclasses
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from aiohttp import web

ROOT = Path(__file__).resolve().parents[1]
TASKS = ("travel-flight-oneway", "jobs-apply-analyst", "shop-trail-order", "social-status-update")
MODES = ("off", "clawrec", "clawrec_pause_all", "playwright_route")
LOADS = 6        # per site, per block
BLOCKS = 2
FETCHES = 200


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def _summary(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 3), "p95": round(_pct(values, 0.95), 3),
            "mean": round(statistics.fmean(values), 3), "n": len(values)}


def _union_spec(urls: dict[str, str]):
    from clawrec.taskfile import expand_sites
    from interceptor.spec_check import load_spec

    specs = [expand_sites(load_spec(ROOT / "specs" / "demo" / f"{t}.yaml"), urls) for t in TASKS]
    rules = [dataclasses.replace(r, index=i) for i, r in enumerate(r for s in specs for r in s.intercept)]
    return dataclasses.replace(specs[0], intercept=tuple(rules)), [s.start_url for s in specs]


async def _ping_server() -> tuple[web.AppRunner, str]:
    async def ping(_request: web.Request) -> web.Response:
        return web.Response(text="ok")

    async def page(_request: web.Request) -> web.Response:
        return web.Response(text="<!doctype html><title>ping</title>", content_type="text/html")

    app = web.Application()
    app.router.add_get("/ping", ping)
    app.router.add_get("/", page)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"


class Mode:
    """Turns one measuring mode on for a block and off again."""

    def __init__(self, name: str, spec, browser, run_dir: Path) -> None:
        self.name, self.spec, self.browser, self.run_dir = name, spec, browser, run_dir
        self.icpt = None
        self.stats: dict[str, int] = {}

    async def __aenter__(self) -> "Mode":
        from interceptor.core import Interceptor

        if self.name.startswith("clawrec"):
            self.icpt = Interceptor(self.spec, self.run_dir / f"{self.name}-{time.monotonic_ns()}",
                                    narrow=self.name == "clawrec")
            await self.icpt.attach(self.browser.ws_url)
        return self

    async def context(self, pw_browser) -> Any:
        ctx = await pw_browser.new_context()
        if self.name == "playwright_route":
            await ctx.route("**/*", lambda route: route.continue_())
        return ctx

    async def __aexit__(self, *exc: object) -> None:
        if self.icpt is not None:
            await self.icpt.close()
            for k, v in self.icpt.stats.items():
                self.stats[k] = self.stats.get(k, 0) + v


async def _measure(out: Path) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    from recorder.browser import launch_browser
    from sites.server import serve_sites

    loads: dict[str, list[float]] = {m: [] for m in MODES}
    fetches: dict[str, list[float]] = {m: [] for m in MODES}
    paused: dict[str, int] = {m: 0 for m in MODES}
    runner, ping = await _ping_server()
    browser = launch_browser(headless=True)
    try:
        with serve_sites() as sites:
            spec, start_urls = _union_spec(sites.urls)
            async with async_playwright() as p:
                pw_browser = await p.chromium.connect_over_cdp(browser.http_url)
                for _block in range(BLOCKS):
                    for name in MODES:
                        async with Mode(name, spec, browser, out) as mode:
                            ctx = await mode.context(pw_browser)
                            page = await ctx.new_page()
                            for url in start_urls:
                                await page.goto(url, wait_until="load")  # warm the cache once per block
                                for _ in range(LOADS):
                                    t0 = time.perf_counter()
                                    await page.goto(url, wait_until="load")
                                    loads[name].append((time.perf_counter() - t0) * 1000)
                            await page.goto(ping + "/")
                            fetches[name] += await page.evaluate(
                                """async (n) => { const out = []; await fetch('/ping?warm');
                                   for (let i = 0; i < n; i++) { const t = performance.now();
                                     await (await fetch('/ping?i=' + i, {cache: 'no-store'})).text();
                                     out.push(performance.now() - t); } return out; }""", FETCHES)
                            await ctx.close()
                        paused[name] += mode.stats.get("paused", 0)
    finally:
        browser.close()
        await runner.cleanup()
    off_load = statistics.median(loads["off"])
    off_fetch = fetches["off"]
    result: dict[str, Any] = {"page_load_ms": {m: _summary(v) for m, v in loads.items()},
                              "fetch_ms": {m: _summary(v) for m, v in fetches.items()},
                              "paused_requests": paused}
    result["page_load_ratio_vs_off"] = {m: round(statistics.median(v) / off_load, 3) for m, v in loads.items()}
    result["added_latency_per_request_ms"] = {
        m: {"median": round(statistics.median(v) - statistics.median(off_fetch), 3),
            "p95": round(_pct(v, 0.95) - _pct(off_fetch, 0.95), 3)} for m, v in fetches.items() if m != "off"}
    clawrec = result["added_latency_per_request_ms"]["clawrec_pause_all"]["median"]
    peer = result["added_latency_per_request_ms"]["playwright_route"]["median"]
    result["goals"] = {
        "page_load_ratio_le_1.05": result["page_load_ratio_vs_off"]["clawrec"] <= 1.05,
        "paused_request_median_added_le_1ms": clawrec <= 1.0,
        "faster_than_playwright_route": (result["page_load_ratio_vs_off"]["clawrec"]
                                         < result["page_load_ratio_vs_off"]["playwright_route"]) and clawrec < peer,
    }
    result["setup"] = {"sites": [u for u in start_urls], "loads_per_site_per_block": LOADS, "blocks": BLOCKS,
                       "sequential_fetches_per_block": FETCHES, "modes": list(MODES)}
    return result


def run(out_dir: str | Path) -> dict[str, Any]:
    """Measure and return the numbers (bench/__main__.py writes the report)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="clawrec-bench-", dir=out) as tmp:
        return asyncio.run(_measure(Path(tmp)))


if __name__ == "__main__":
    import json
    import sys

    print(json.dumps(run(sys.argv[1] if len(sys.argv) > 1 else "bench/out/interceptor"), indent=2))
