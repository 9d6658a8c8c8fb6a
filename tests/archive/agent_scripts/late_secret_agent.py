"""A command agent for the late-secret archive test: searches for a value (argv[1]) in a plain search box (a form GET:
the value goes into a URL, a page echoes it and posts it as a note), then types the same value into a password input
(only now is it a run secret) and signs in (the terminal request). Tolerates a replay where the note misses."""

import asyncio
import os
import sys

from playwright.async_api import async_playwright


async def main() -> None:
    value = sys.argv[1]
    async with async_playwright() as p:
        browser = await p.chromium.connect_over_cdp(os.environ["CLAWREC_CDP_URL"])
        page = browser.contexts[0].pages[0]
        await page.wait_for_selector("#q", timeout=20_000)
        await page.get_by_label("Search").fill(value)
        await page.get_by_role("button", name="Search").click()
        await page.wait_for_selector("#noted", state="attached", timeout=20_000)  # the results page posted its note
        await page.get_by_label("Password").click()
        await page.keyboard.type(value)
        await page.get_by_label("User").click()  # the typing burst ends: the value is learnt now
        await page.wait_for_timeout(1_000)
        await page.get_by_role("button", name="Sign in").click()
        await page.wait_for_selector("#status:text('sent')", timeout=20_000)


asyncio.run(main())
