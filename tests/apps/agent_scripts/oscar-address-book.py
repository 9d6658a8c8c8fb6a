"""oscar: log in, then add an address to the address book (Account → Address book → Add a new address).
`--postcode P`: a wrong postcode for the one-field-wrong run."""

import argparse
import asyncio

from oscar_common import base_of, first_page, log, login, task
from playwright.async_api import async_playwright


async def main(postcode: str | None) -> None:
    doc = task()
    user = doc["user"]
    base = base_of(doc["start_url"])
    async with async_playwright() as p:
        page = await first_page(p, doc["start_url"])
        await login(page, base, user["email"], user["password"])
        await page.goto(base + "accounts/addresses/add/")
        await page.fill("#id_first_name", user["first_name"])
        await page.fill("#id_last_name", user["last_name"])
        await page.fill("#id_line1", user["line1"])
        await page.fill("#id_line4", user["city"])
        await page.fill("#id_postcode", postcode or user["postcode"])
        await page.select_option("#id_country", "GB")
        log("tool_call", {"click": "Save"}, tool="click", final=True)
        await page.click("form[method=post] button[type=submit]:has-text('Save')")
        await asyncio.sleep(30)


ap = argparse.ArgumentParser()
ap.add_argument("--postcode")
asyncio.run(main(ap.parse_args().postcode))
