"""A process that records a short scripted run, then waits to be killed (used by test_crashes.py).

Prints one JSON line {pids, run_dir} once it has clicked, and {"t": …} heartbeats after.
Usage: python -m tests.recorder.crash_child RUN_DIR
"""

from __future__ import annotations

import asyncio
import json
import sys

from playwright.async_api import async_playwright

from recorder.session import Recording
from tests.recorder.helpers import actions, serve_test_site, wait_for


async def main(run_dir: str) -> None:
    async with serve_test_site() as (base, _hits):
        rec = Recording(run_dir, task_id="crash", agent="script")
        await rec.start()
        async with async_playwright() as p:
            browser = await p.chromium.connect_over_cdp(rec.browser.http_url)
            page = browser.contexts[0].pages[0]
            await page.goto(base + "/")
            await page.click("#go")
            with rec.agent_log_path.open("a") as fh:
                fh.write(json.dumps({"role": "assistant", "content": "clicked go"}) + "\n")
            await wait_for(lambda: actions(rec.run_dir, "click"), what="click recorded")
            print(json.dumps({"pids": {"chromium": rec.browser.pid, "ffmpeg": rec.video.pid,
                                       "xvfb": rec.display.pid}, "t": rec.clock.now()}), flush=True)
            while True:
                await asyncio.sleep(0.5)
                print(json.dumps({"t": rec.clock.now()}), flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
