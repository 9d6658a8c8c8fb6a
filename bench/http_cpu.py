"""clawrec's own CPU per request (issue 36: goal <= 0.3 ms), measured so that machine load cannot move it.

Why CPU time and not wall time: the machine is shared, and wall time counts whatever else runs; the CPU time of the
interceptor's process over a fixed number of requests does not. How: one headless Chromium; the interceptor (as in a
run: narrowed Fetch at browser and page level for a rule nothing requests, the HTTP log with response bodies,
http.jsonl + http.har) runs in a child process of its own, so that nothing else is counted; a page on a loopback
server (a second child) makes `REQUESTS` sequential requests, two GETs of a small text for each POST of a JSON body
with a secret field answered with JSON (the shapes the join, the redaction and the body reads work on); the child's
user + system CPU (psutil) over those requests, minus its idle CPU over the same wall time, divided by the count, is
the figure. `REPEATS` repeats, the median reported; apart, the CPU of the close (http.har) per request.
`CLAWREC_BENCH_HTTP_CPU_COUNT=1` also counts the CDP events the child received per request by method (costs CPU
itself: a separate diagnostic run);
`CLAWREC_BENCH_HTTP_CPU_MODE=chrome_network_idle` measures the bare receiver instead (see MODE);
`CLAWREC_BENCH_HTTP_CPU_PROFILE=FILE` writes the child's cProfile stats there (also diagnostic).
`make bench BENCH=http_cpu`.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import psutil

REQUESTS = int(os.environ.get("CLAWREC_BENCH_HTTP_CPU_REQUESTS", "300"))
REPEATS = int(os.environ.get("CLAWREC_BENCH_HTTP_CPU_REPEATS", "3"))
COUNT = os.environ.get("CLAWREC_BENCH_HTTP_CPU_COUNT") == "1"
# `chrome_network_idle`: the child is the bare client with Network on (events received and dropped unparsed, no
# body read, no log): the floor of receiving the HTTP layer's events in this process
MODE = os.environ.get("CLAWREC_BENCH_HTTP_CPU_MODE", "clawrec")
PROFILE = os.environ.get("CLAWREC_BENCH_HTTP_CPU_PROFILE", "")  # a file: the child's cProfile stats (diagnostic)

FETCH_JS = """async (n) => { await fetch('/ping?warm');
  for (let i = 0; i < n; i++) {
    if (i % 3 == 2) {
      const r = await fetch('/api/save', {method: 'POST', headers: {'content-type': 'application/json'},
        body: JSON.stringify({i: i, email: 'alex@example.com', password: 'hunter22', note: 'x'.repeat(200)})});
      await r.json();
    } else { await (await fetch('/ping?i=' + i, {cache: 'no-store'})).text(); }
  }
  return n; }"""

SPEC = """version: 1
id: bench-http-cpu
category: work
instruction: Nothing; the bench's page makes requests.
start_url: "{base}/"
intercept:
  - url: "{base}/api/never"
    method: POST
"""


def _serve(conn: Any) -> None:
    """Child process: the loopback site (a page, a text endpoint, a JSON endpoint)."""
    from aiohttp import web

    async def main() -> None:
        async def ping(_r: web.Request) -> web.Response:
            return web.Response(text="ok " * 20)

        async def save(r: web.Request) -> web.Response:
            await r.read()
            return web.json_response({"ok": True, "id": 7, "token": "abc", "items": list(range(20))})

        async def page(_r: web.Request) -> web.Response:
            return web.Response(text="<!doctype html><title>bench</title>", content_type="text/html")

        app = web.Application()
        app.router.add_get("/ping", ping)
        app.router.add_post("/api/save", save)
        app.router.add_get("/", page)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        conn.send(f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}")
        await asyncio.get_running_loop().run_in_executor(None, conn.recv)
        await runner.cleanup()

    asyncio.run(main())


def _intercept(conn: Any, ws_url: str, spec_path: str, out: str, count: bool) -> None:
    """Child process: the interceptor, attached as in a run, until told to stop; then its counts."""
    import interceptor.cdp as cdp
    from interceptor.core import Interceptor
    from taskspec.load import load_spec

    counts: Counter[str] = Counter()
    sizes: Counter[str] = Counter()
    if count:
        plain = cdp.event_method

        def counting(raw: str | bytes) -> str | None:
            method = plain(raw)
            counts[method or "(reply or parsed)"] += 1
            sizes[method or "(reply or parsed)"] += len(raw)
            return method
        cdp.event_method = counting

    async def main() -> None:
        if MODE != "clawrec":  # the bare client of bench/yardsticks.py: the same events received, none read
            from bench.yardsticks import Yardstick
            stick = Yardstick.named(MODE)
            await stick.attach(ws_url)
            conn.send("attached")
            await asyncio.get_running_loop().run_in_executor(None, conn.recv)
            await stick.close()
            conn.send({"counts": dict(counts), "bytes": dict(sizes)})
            return
        icpt = Interceptor(load_spec(spec_path), out, secrets=["hunter22"])
        await icpt.attach(ws_url)
        conn.send("attached")
        await asyncio.get_running_loop().run_in_executor(None, conn.recv)
        c0 = time.process_time()
        if icpt.http is not None:
            await icpt.http.settle()
        await icpt.close()
        conn.send({"close_cpu_s": time.process_time() - c0, "counts": dict(counts), "bytes": dict(sizes),
                   "dropped": icpt.conn.dropped if icpt.conn else None})

    if not PROFILE:
        asyncio.run(main())
        return
    import cProfile
    with cProfile.Profile(time.process_time) as prof:
        asyncio.run(main())
    prof.dump_stats(PROFILE)


def _cpu(pid: int) -> float:
    t = psutil.Process(pid).cpu_times()
    return t.user + t.system


async def _drive(ws_url: str, base: str, child: int) -> list[dict[str, float]]:
    from interceptor.cdp import Connection

    conn = await Connection.open(ws_url)
    try:
        target = await conn.root.call("Target.createTarget", {"url": "about:blank"})
        attached = await conn.root.call("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})
        page = conn.session(attached["sessionId"])
        await page.call("Page.navigate", {"url": base + "/"})
        await asyncio.sleep(1.0)
        fn = {"awaitPromise": True, "returnByValue": True}
        await page.call("Runtime.evaluate", {**fn, "expression": f"({FETCH_JS})(20)"}, timeout=120)  # warm-up
        rows = []
        for _ in range(REPEATS):
            await asyncio.sleep(1.5)  # the warm-up's or last repeat's bodies and flushes end first
            c0, t0, sys0 = _cpu(child), time.monotonic(), psutil.Process(child).cpu_times().system
            await page.call("Runtime.evaluate", {**fn, "expression": f"({FETCH_JS})({REQUESTS})"}, timeout=600)
            await asyncio.sleep(0.5)  # the last bodies are read and the log flushed
            busy_cpu, wall = _cpu(child) - c0, time.monotonic() - t0
            sys_cpu = psutil.Process(child).cpu_times().system - sys0
            c1 = _cpu(child)
            await asyncio.sleep(min(wall, 10.0))
            idle_rate = (_cpu(child) - c1) / min(wall, 10.0)
            rows.append({"cpu_s": busy_cpu, "sys_s": sys_cpu, "wall_s": wall, "idle_cpu_per_s": idle_rate,
                         "ms_per_request": (busy_cpu - idle_rate * wall) / REQUESTS * 1000})
        return rows
    finally:
        await conn.close()


def run(out_dir: Path) -> dict:
    from recorder.browser import launch_browser

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    ctx = multiprocessing.get_context("spawn")
    site_end, site_child = ctx.Pipe()
    site = ctx.Process(target=_serve, args=(site_child,), name="bench-http-cpu-site", daemon=True)
    site.start()
    browser = icpt = None
    try:
        if not site_end.poll(60):
            raise RuntimeError("the bench's site did not start")
        base = site_end.recv()
        work = Path(tempfile.mkdtemp(prefix="http-cpu-", dir=out_dir))
        spec = work / "bench-http-cpu.yaml"
        spec.write_text(SPEC.format(base=base))
        browser = launch_browser(headless=True)
        icpt_end, icpt_child = ctx.Pipe()
        icpt = ctx.Process(target=_intercept, name="bench-http-cpu-clawrec",
                           args=(icpt_child, browser.ws_url, str(spec), str(work / "run"), COUNT))
        icpt.start()
        if not icpt_end.poll(60):
            raise RuntimeError("the interceptor did not attach")
        icpt_end.recv()
        rows = asyncio.run(_drive(browser.ws_url, base, icpt.pid))
        icpt_end.send("stop")
        tail = icpt_end.recv() if icpt_end.poll(60) else {}
        http_lines = sum(1 for _ in (work / "run" / "http.jsonl").open()) if MODE == "clawrec" else None
        per = [r["ms_per_request"] for r in rows]
        result = {"mode": MODE, "requests": REQUESTS, "repeats": REPEATS,
                  "ms_per_request_median": round(statistics.median(per), 3),
                  "ms_per_request": [round(x, 3) for x in per],
                  "raw_cpu_ms_per_request": [round(r["cpu_s"] / REQUESTS * 1000, 3) for r in rows],
                  "of_which_system_ms": [round(r["sys_s"] / REQUESTS * 1000, 3) for r in rows],
                  "idle_cpu_pct": [round(100 * r["idle_cpu_per_s"], 2) for r in rows],
                  "wall_s": [round(r["wall_s"], 1) for r in rows], "http_jsonl_lines": http_lines,
                  "load_avg_1m": round(os.getloadavg()[0], 1), "goal_ms": 0.3,
                  # the close (http.har written from every record) per request of the whole run, warm-up included
                  "close_ms_per_request": round(tail.get("close_cpu_s", 0) / (REQUESTS * REPEATS + 21) * 1000, 3)}
        if COUNT:
            n = REQUESTS * REPEATS + 20 + 1
            result["messages_per_request"] = {k: round(v / n, 2) for k, v in
                                              sorted(tail.get("counts", {}).items(), key=lambda kv: -kv[1])}
            result["bytes_per_request"] = {k: round(v / n) for k, v in
                                           sorted(tail.get("bytes", {}).items(), key=lambda kv: -kv[1])}
        return result
    finally:
        if icpt is not None:
            icpt.join(30)
            if icpt.is_alive():
                icpt.kill()
        if browser is not None:
            browser.kill()
        with contextlib.suppress(OSError):
            site_end.send("stop")
        site.join(15)
        if site.is_alive():
            site.kill()
