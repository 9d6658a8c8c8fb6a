"""wagtail: a visitor writes to the journal on its contact form page (name, e-mail, message) and presses Send: one
POST to /contact/, the final submission (no earlier write). `--email E`: a wrong e-mail for the one-field-wrong run."""

import argparse
import asyncio

from oscar_common import first_page, task as read_task
from wagtail_common import final_click
from playwright.async_api import async_playwright

MESSAGE = "Your winter soup recipe does not say how many leeks to use. Two or three?"


async def main(email: str) -> None:
    doc = read_task()
    async with async_playwright() as p:
        page = await first_page(p, doc["start_url"])
        await page.wait_for_load_state("load")
        await page.fill("#id_your_name", doc["user"]["name"])
        await page.fill("#id_email", email)
        await page.fill("#id_message", MESSAGE)
        await final_click(page, "form button[type=submit]", "Send")


ap = argparse.ArgumentParser()
ap.add_argument("--email", default="robin.park@example.org")
asyncio.run(main(ap.parse_args().email))
