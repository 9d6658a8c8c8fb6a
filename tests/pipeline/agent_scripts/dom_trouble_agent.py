"""A command agent that gets into the trouble the DOM layer's diagnosis names (evaluator/dom_diagnosis.py): it types
a name, clicks an aria-disabled "Next" (the page then clears the name), clicks where "Pay" is although a promo overlay covers
it (the overlay opens a dialog), and stops there without submitting."""

import asyncio
import os

from playwright.async_api import async_playwright


async def main():
    async with async_playwright() as p:
        browser = await p.chromium.connect_over_cdp(os.environ["CLAWREC_CDP_URL"])
        page = browser.contexts[0].pages[0]
        await page.wait_for_selector("#name")
        await page.fill("#name", "Alex Doe")
        await page.wait_for_timeout(800)  # the typing burst ends (the extension records the value)
        await page.click("#next", force=True)  # Playwright itself refuses an aria-disabled element
        await page.wait_for_function("document.getElementById('name').value === ''")  # the page reset it
        box = await page.locator("#pay").bounding_box()
        await page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        await page.wait_for_selector("#dlg", state="visible")
        await page.wait_for_timeout(300)


asyncio.run(main())
