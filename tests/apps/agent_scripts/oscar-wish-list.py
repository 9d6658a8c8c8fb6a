"""oscar: log in, open the book's page, Add to wish list. `--book TITLE`: another book for the one-field-wrong run
(the wish list form's URL names the product: a wrong book is a wrong URL, which the rule must not catch)."""

import argparse
import asyncio

from oscar_common import base_of, first_page, log, login, task
from playwright.async_api import async_playwright


async def main(book: str) -> None:
    doc = task()
    user = doc["user"]
    base = base_of(doc["start_url"])
    async with async_playwright() as p:
        page = await first_page(p, doc["start_url"])
        await login(page, base, user["email"], user["password"])
        await page.goto(base + "catalogue/")
        await page.get_by_role("link", name=book).first.click()
        await page.wait_for_selector("#add_to_wishlist_form")
        log("tool_call", {"click": "Add to wish list"}, tool="click", final=True)
        await page.click("#add_to_wishlist_form button[type=submit]")
        await asyncio.sleep(30)


ap = argparse.ArgumentParser()
ap.add_argument("--book", default="A Field Guide to Loopback")
asyncio.run(main(ap.parse_args().book))
