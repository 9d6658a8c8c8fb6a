"""A scripted command agent for Driftwood Goods (sites/drift): search "lamp", wait for its stock, click "Order now".
Fails (exit 1) when the button is not there (the drifted site calls it "Buy now"). With an argument, writes the
SHA-256 of the CSRF token the page holds there (the run files redact the token itself)."""

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
        await page.wait_for_selector("#products li", timeout=20_000)
        await page.fill("#q", "lamp")
        await page.click("#search button")
        await page.wait_for_selector("#results li", timeout=20_000)
        await page.wait_for_function("document.getElementById('stock').textContent.includes('in stock')",
                                     timeout=20_000)
        if len(sys.argv) > 1:
            token = await page.get_attribute("meta[name=csrf-token]", "content")
            open(sys.argv[1], "w").write(hashlib.sha256(token.encode()).hexdigest())
        log("tool_call", {"click": "Order now"}, tool="click")
        await page.locator("#results").get_by_role("button", name="Order now").click(timeout=5_000)
        await page.wait_for_timeout(1_000)


asyncio.run(main())
