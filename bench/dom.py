"""DOM layer benchmarks (issue 39): page load with the layer vs without, CPU per recorded minute, bytes per action.

Goals: page load with the layer <= 1.05x without; a typical demo run's layer <= 2 MB compressed. Both modes run the
same recorder (headless, no video, no screenshots: only the DOM layer differs), alternating A/B/B/A so a machine
that slows down during the measurement weighs on both. CPU is this process (the recorder's parsing, redaction and
zstd of each capture, in threads) plus Chromium's whole process group (the renderer builds each snapshot).
CLAWREC_BENCH_DOM_S (default 60) is the length of each CPU run; CLAWREC_BENCH_DOM_LOADS (default 12) the page loads
per browser; CLAWREC_BENCH_DOM_ROUNDS (default 4) how many A/B/B/A rounds (a browser each): one browser's loads are
~10 % apart from the next browser's on an idle machine, so the ratio is taken over many browsers per mode.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import time
from pathlib import Path

import psutil
from playwright.async_api import async_playwright

from recorder.session import Recording
from sites.drivers import drive
from sites.server import serve_sites

USER = {"first_name": "Alex", "last_name": "Doe", "email": "alex.doe@example.com", "phone": "+1 512 555 0142",
        "date_of_birth": "1990-04-12"}


def _group_cpu(pgid: int) -> float:
    """user + system CPU seconds of every live process in a process group (Chromium's)."""
    total = 0.0
    for proc in psutil.process_iter(["pid"]):
        try:
            if os.getpgid(proc.pid) == pgid:
                t = proc.cpu_times()
                total += t.user + t.system
        except (psutil.Error, ProcessLookupError, OSError):
            continue
    return total


async def _loads(out: Path, urls: dict, dom: bool, n: int, tag: str) -> list[float]:
    """`n` loads of the travel home page (navigation start to load event, the page's own clock), each followed by
    the action records a load produces, so the layer captures as it would in a run."""
    rec = Recording(out / f"load-{tag}-{'dom' if dom else 'nodom'}", agent="bench", headless=True, video=False,
                    screenshots=False, dom=dom)
    await rec.start()
    await rec.wait_extension(15)
    times = []
    try:
        async with async_playwright() as p:
            browser = await p.chromium.connect_over_cdp(rec.browser.http_url)
            page = browser.contexts[0].pages[0]
            for _ in range(n):
                await page.goto(urls["travel"] + "?bench=" + str(time.monotonic_ns()), wait_until="load")
                ms = await page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
                times.append(float(ms))
                await page.wait_for_timeout(300)  # the load's capture lands before the next navigation
            await browser.close()
    finally:
        await rec.finalize("ok", "bench dom loads")
    return times


async def _session(out: Path, urls: dict, dom: bool, seconds: float) -> dict:
    """The travel task driven again and again for `seconds`: CPU of clawrec + Chromium, the layer's bytes."""
    rec = Recording(out / f"cpu-{'dom' if dom else 'nodom'}", agent="bench", headless=True, video=False,
                    screenshots=False, dom=dom)
    await rec.start()
    await rec.wait_extension(15)
    pgid = rec.browser.pid
    me0, br0, t0 = time.process_time(), _group_cpu(pgid), time.monotonic()
    drives = 0
    async with async_playwright() as p:
        browser = await p.chromium.connect_over_cdp(rec.browser.http_url)
        page = browser.contexts[0].pages[0]
        page.set_default_timeout(30_000)
        while time.monotonic() - t0 < seconds:
            await drive("travel", page, urls, USER)
            drives += 1
            await page.wait_for_timeout(1000)
            await page.evaluate("localStorage.clear(); sessionStorage.clear()")
            await browser.contexts[0].clear_cookies()
        me1, br1, elapsed = time.process_time(), _group_cpu(pgid), time.monotonic() - t0
        await browser.close()
    capture_s = list(rec.dom.capture_s) if rec.dom else []
    manifest = await rec.finalize("ok", "bench dom cpu")
    layer = manifest["layers"].get("dom", {})
    actions = manifest["layers"].get("actions", {}).get("count") or 0
    return {"seconds": round(elapsed, 1), "task_runs": drives, "actions": actions,
            "cpu_s_per_min": {"clawrec": round(60 * (me1 - me0) / elapsed, 2),
                              "chromium": round(60 * (br1 - br0) / elapsed, 2)},
            "captures": layer.get("count"), "bytes": layer.get("bytes"),
            "capture_ms_median": round(1000 * statistics.median(capture_s), 1) if capture_s else None}


async def _measure(out: Path) -> dict:
    seconds = float(os.environ.get("CLAWREC_BENCH_DOM_S", "60"))
    n = int(os.environ.get("CLAWREC_BENCH_DOM_LOADS", "12"))
    with serve_sites(log_path=out / "sites.jsonl") as sites:
        loads: dict[bool, list[float]] = {True: [], False: []}
        per_browser: dict[bool, list[float]] = {True: [], False: []}
        rounds = int(os.environ.get("CLAWREC_BENCH_DOM_ROUNDS", "4"))
        for i, dom in enumerate((False, True, True, False) * rounds):  # A/B/B/A, again and again
            times = await _loads(out, sites.urls, dom, n, str(i))
            loads[dom] += times
            per_browser[dom].append(round(statistics.median(times), 1))
        on = await _session(out, sites.urls, True, seconds)
        off = await _session(out, sites.urls, False, seconds)
    ratio = statistics.median(loads[True]) / statistics.median(loads[False])
    per_run = on["bytes"] / on["task_runs"] if on["task_runs"] and on["bytes"] else None
    return {
        "page_load": {"median_ms_without": round(statistics.median(loads[False]), 1),
                      "median_ms_with": round(statistics.median(loads[True]), 1), "ratio": round(ratio, 3),
                      "goal_ratio": 1.05, "meets_goal": ratio <= 1.05, "loads_per_mode": len(loads[True]),
                      "browser_medians_ms_without": per_browser[False], "browser_medians_ms_with": per_browser[True]},
        "cpu_per_recorded_minute": {
            "with_layer": on["cpu_s_per_min"], "without_layer": off["cpu_s_per_min"],
            "layer_cpu_s_per_min": round(on["cpu_s_per_min"]["clawrec"] + on["cpu_s_per_min"]["chromium"]
                                         - off["cpu_s_per_min"]["clawrec"] - off["cpu_s_per_min"]["chromium"], 2)},
        "size": {"bytes": on["bytes"], "captures": on["captures"], "actions": on["actions"],
                 "bytes_per_action": round(on["bytes"] / on["actions"]) if on["actions"] and on["bytes"] else None,
                 "bytes_per_capture": round(on["bytes"] / on["captures"]) if on["captures"] else None,
                 "per_demo_run_bytes": round(per_run) if per_run else None, "goal_per_demo_run_bytes": 2 * 2**20,
                 "meets_goal": per_run is not None and per_run <= 2 * 2**20},
        "capture_ms_median": on["capture_ms_median"], "task_runs": on["task_runs"],
    }


def run(out_dir: str | Path) -> dict:
    out = Path(out_dir)
    shutil.rmtree(out, ignore_errors=True)  # a recording into a used folder would count the last bench's captures
    out.mkdir(parents=True, exist_ok=True)
    result = asyncio.run(_measure(out))
    result["load_average_1m"] = os.getloadavg()[0]
    return result
