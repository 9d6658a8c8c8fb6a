"""Interceptor cost, measured on the local sites with real Chromium (issue 4, item 9 and acceptance):

- page-load time of the four sites' start pages: interception off / clawrec (narrowed: pauses only what can match) /
  clawrec pausing every request / Playwright `context.route('**/*')` continuing every request (the peer) /
  clawrec without its HTTP log (`clawrec_no_http_log`) /
  `chrome_fetch_idle`: a bare CDP client with Fetch enabled on every page for a pattern nothing matches (Chrome's own
  cost of having Fetch on at all: it routes every request of the frame through its DevTools URL loader proxy);
- added latency per paused request: sequential fetches of a tiny loopback endpoint, per-request durations measured
  in the page, median and p95 minus the same with interception off; `pause_round_trip_ms` is the part due to the
  pause itself (clawrec pausing every request minus clawrec pausing none of them, both with Fetch on).
As in a real run, the interceptor attaches first and each mode then opens a fresh context (warmed by one untimed load
of each page); modes are interleaved in a random order per repetition so that drift (other processes on the
machine) spreads evenly; the 1-minute load average is reported with the numbers.
`interceptor_decision_us` is our own time per paused request (requestPaused read -> continueRequest queued)."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from aiohttp import web

ROOT = Path(__file__).resolve().parents[1]
TASKS = ("travel-flight-oneway", "jobs-apply-analyst", "shop-trail-order", "social-status-update")
MODES = ("off", "clawrec", "clawrec_pause_all", "playwright_route", "chrome_fetch_idle", "clawrec_no_http_log")
REPS = 8         # each: every mode (random order) loads the four start pages once and runs the fetches
FETCHES = 50


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def _summary(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 3), "p95": round(_pct(values, 0.95), 3),
            "mean": round(statistics.fmean(values), 3), "n": len(values)}


def _union_spec(urls: dict[str, str]):
    from clawrec.taskfile import expand_sites
    from taskspec.load import load_spec

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


class _IdleFetch:
    """Fetch on in every page for a pattern that never matches: what Chrome alone costs (no pause, no logging)."""

    async def attach(self, ws_url: str) -> None:
        from interceptor.cdp import Connection

        auto = {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True}
        self.conn = await Connection.open(ws_url)

        def attached(session, params: dict[str, Any]) -> None:
            if session.target_type == "page":
                session.send_quiet("Fetch.enable", {"patterns": [{"urlPattern": "http://never.invalid/*"}]})
            session.send_quiet("Target.setAutoAttach", auto)
            if params.get("waitingForDebugger"):
                session.send_quiet("Runtime.runIfWaitingForDebugger")

        self.conn.on_attach.append(attached)
        await self.conn.root.send("Target.setAutoAttach", auto)

    async def close(self) -> None:
        await self.conn.close()


async def _attach(name: str, spec, browser, out: Path):
    from interceptor.core import Interceptor

    if name == "chrome_fetch_idle":
        idle = _IdleFetch()
        await idle.attach(browser.ws_url)
        return idle
    if not name.startswith("clawrec"):
        return None
    icpt = Interceptor(spec, out / f"{name}-{time.monotonic_ns()}", narrow=name != "clawrec_pause_all",
                       http_log=name != "clawrec_no_http_log")
    await icpt.attach(browser.ws_url)
    return icpt


FETCH_JS = """async (n) => { const out = []; await fetch('/ping?warm');
  for (let i = 0; i < n; i++) { const t = performance.now();
    await (await fetch('/ping?i=' + i, {cache: 'no-store'})).text(); out.push(performance.now() - t); }
  return out; }"""


async def _measure(out: Path) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    from interceptor.core import Interceptor
    from recorder.browser import launch_browser
    from sites.server import serve_sites

    loads: dict[str, list[float]] = {m: [] for m in MODES}
    fetches: dict[str, list[float]] = {m: [] for m in MODES}
    paused: dict[str, int] = {m: 0 for m in MODES}
    decision_us: list[float] = []
    rng = random.Random(4)
    runner, ping = await _ping_server()
    browser = launch_browser(headless=True)
    try:
        with serve_sites() as sites:
            spec, start_urls = _union_spec(sites.urls)
            async with async_playwright() as p:
                pw_browser = await p.chromium.connect_over_cdp(browser.http_url)
                for _rep in range(REPS):  # modes interleaved in a random order each repetition
                    for name in rng.sample(MODES, len(MODES)):
                        icpt = await _attach(name, spec, browser, out)  # first, as in a run
                        ctx = await pw_browser.new_context()
                        try:
                            if name == "playwright_route":
                                await ctx.route("**/*", lambda route: route.continue_())
                            page = await ctx.new_page()
                            for url in start_urls:  # warm: caches, connections, code
                                await page.goto(url, wait_until="load")
                            for url in start_urls:
                                t0 = time.perf_counter()
                                await page.goto(url, wait_until="load")
                                loads[name].append((time.perf_counter() - t0) * 1000)
                            await page.goto(ping + "/")
                            fetches[name] += await page.evaluate(FETCH_JS, FETCHES)
                        finally:
                            await ctx.close()
                            if icpt is not None:
                                await icpt.close()
                                if isinstance(icpt, Interceptor):
                                    paused[name] += icpt.stats["paused"]
                                    decision_us += icpt.continue_us
    finally:
        browser.close()
        await runner.cleanup()
    med = {m: statistics.median(v) for m, v in loads.items()}
    fmed = {m: statistics.median(v) for m, v in fetches.items()}
    result: dict[str, Any] = {
        "page_load_ms": {m: _summary(v) for m, v in loads.items()},
        "page_load_ratio_vs_off": {m: round(med[m] / med["off"], 3) for m in MODES},
        # the goal's yardstick: Chrome itself with Fetch on and nothing paused (no CDP interceptor can go below it)
        "page_load_ratio_vs_chrome_fetch_floor": {m: round(med[m] / med["chrome_fetch_idle"], 3) for m in MODES},
        "fetch_ratio_vs_chrome_fetch_floor": {m: round(fmed[m] / fmed["chrome_fetch_idle"], 3) for m in MODES},
        "fetch_ms": {m: _summary(v) for m, v in fetches.items()},
        "added_latency_per_paused_request_ms": {
            m: {"median": round(fmed[m] - fmed["off"], 3),
                "p95": round(_pct(fetches[m], 0.95) - _pct(fetches["off"], 0.95), 3)}
            for m in ("clawrec_pause_all", "playwright_route")},
        "pause_round_trip_ms": round(fmed["clawrec_pause_all"] - fmed["clawrec"], 3),
        "chrome_fetch_idle_added_ms": round(fmed["chrome_fetch_idle"] - fmed["off"], 3),
        "http_log_added_ms": round(fmed["clawrec"] - fmed["clawrec_no_http_log"], 3),
        "interceptor_decision_us": _summary(decision_us) if decision_us else {},
        "paused_requests": paused,
    }
    ours = result["added_latency_per_paused_request_ms"]["clawrec_pause_all"]["median"]
    peer = result["added_latency_per_paused_request_ms"]["playwright_route"]["median"]
    result["goals"] = {
        # DEVELOPERS.md: clawrec within 3 % of Chrome's own Fetch floor (the old "<= 1.05x interception off" is
        # retired: it is below that floor), and far less overhead than Playwright's route
        "page_load_le_1.03x_chrome_fetch_floor": result["page_load_ratio_vs_chrome_fetch_floor"]["clawrec"] <= 1.03,
        "fetch_le_1.03x_chrome_fetch_floor": result["fetch_ratio_vs_chrome_fetch_floor"]["clawrec"] <= 1.03,
        "paused_request_median_added_le_1ms": ours <= 1.0,
        "faster_than_playwright_route": med["clawrec"] < med["playwright_route"] and ours < peer,
        "pause_round_trip_le_1ms": result["pause_round_trip_ms"] <= 1.0,
    }
    result["reading"] = (
        "chrome_fetch_idle is the floor of any CDP Fetch interceptor: Chrome proxies every request of a frame with "
        "Fetch on, whatever the patterns. clawrec_no_http_log is the interceptor without its HTTP layer (Network "
        "events -> http.jsonl); the rest of clawrec's cost is that layer. pause_round_trip_ms is what pausing one "
        "request adds (clawrec pausing every request minus clawrec pausing none).")
    result["setup"] = {"sites": list(start_urls), "repetitions": REPS, "sequential_fetches_per_rep": FETCHES,
                       "modes": list(MODES), "load_average_1min": round(os.getloadavg()[0], 1),
                       "cpus": os.cpu_count()}
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
