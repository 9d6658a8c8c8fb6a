"""A command agent that fills the disk: the page POSTs 60 kB bodies (each logged in http.jsonl) until stopped."""

import asyncio
import os

from playwright.async_api import async_playwright


async def main():
    async with async_playwright() as p:
        browser = await p.chromium.connect_over_cdp(os.environ["CLAWREC_CDP_URL"])
        page = browser.contexts[0].pages[0]
        for _ in range(2000):
            await page.evaluate("fetch('/api/blob', {method: 'POST', body: 'x'.repeat(60000)}).catch(() => 0)")
            await asyncio.sleep(0.01)


asyncio.run(main())
