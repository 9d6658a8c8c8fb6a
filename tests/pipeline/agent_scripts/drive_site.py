"""A command agent that completes a demo task with the sites' own Playwright driver (sites.drivers.drive), the way
a person would: `drive_site.py SITE`. Uses CLAWREC_CDP_URL, CLAWREC_TASK and CLAWREC_SITES (set by --serve-sites).
Used to record the committed reference run and in the pipeline tests."""

import asyncio
import json
import os
import sys
import time
from pathlib import Path

from playwright.async_api import async_playwright

from sites.drivers import drive


def log(role, content, **fields):
    with open(os.environ["CLAWREC_AGENT_LOG"], "a") as fh:
        fh.write(json.dumps({"ts": time.time(), "role": role, "content": content, **fields}) + "\n")


async def main(site: str) -> None:
    task = json.load(open(os.environ["CLAWREC_TASK"]))
    urls = json.loads(os.environ["CLAWREC_SITES"])
    files = {Path(f).name: f for f in task["files"]}
    log("user", task["instruction"])
    async with async_playwright() as p:
        browser = await p.chromium.connect_over_cdp(os.environ["CLAWREC_CDP_URL"])
        context = browser.contexts[0]
        page = context.pages[0] if context.pages else await context.new_page()
        log("tool_call", {"driver": site}, tool="drive")
        await drive(site, page, urls, task["user"], files)
        log("tool_result", f"driver finished on {page.url}", tool="drive")


asyncio.run(main(sys.argv[1]))
