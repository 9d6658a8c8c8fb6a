"""A scripted command agent for the service-worker shop (tests/pipeline/sw_site.py): open the product page once the
worker controls the home page, wait until every answer arrived (the Order button is enabled), click Order.
Exits 1 (an agent error) when the page never gets ready. With an argument, writes the SHA-256 of the CSRF token the
page holds there (the run files redact the token itself)."""

import asyncio
import hashlib
import json
import os
import sys
import time

from playwright.async_api import async_playwright


def log(role, content, **fields):
    with open(os.environ["CLAWREC_AGENT_LOG"], "a") as fh:
        fh.write(json.dumps({"ts": time.time(), "role": role, "content": content, **fields}) + "\n")


async def main() -> None:
    task = json.load(open(os.environ["CLAWREC_TASK"]))
    log("user", task["instruction"])
    async with async_playwright() as p:
        browser = await p.chromium.connect_over_cdp(os.environ["CLAWREC_CDP_URL"])
        page = browser.contexts[0].pages[0]
        await page.click("#product", timeout=20_000)
        try:
            await page.wait_for_selector("#order:not([disabled])", timeout=20_000)
        except Exception:
            status = await page.text_content("#status")
            raise SystemExit(f"the product page never got ready: {status}")
        if len(sys.argv) > 1:
            token = await page.get_attribute("meta[name=csrf-token]", "content")
            open(sys.argv[1], "w").write(hashlib.sha256(token.encode()).hexdigest())
        log("tool_call", {"click": "Order"}, tool="click")
        await page.click("#order")
        await page.wait_for_timeout(1_000)


asyncio.run(main())
