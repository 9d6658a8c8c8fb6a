"""Screenshots of each site's key pages in headless Chromium: `python -m sites.screenshot [OUT_DIR]`.

Why a script: the pages must look like real sites, and a person reviews them as images (sites/screenshots/).
Needs Playwright and Chromium ($CLAWREC_CHROMIUM or /usr/lib/chromium/chromium); run from the repo root.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path
from typing import Any

from sites.server import serve_sites

CHROMIUM = os.environ.get("CLAWREC_CHROMIUM", "/usr/lib/chromium/chromium")
SHOP_USER = {"name": "Alex Doe", "email": "alex.doe@example.com",
             "address": {"street": "1200 Barton Springs Rd", "city": "Austin", "state": "TX", "zip": "78704"}}


async def travel(page: Any, urls: dict, out: Path) -> None:
    await page.goto(urls["travel"])
    await page.wait_for_selector(".deal img")
    await page.screenshot(path=out / "travel-home.png")
    await page.get_by_role("button", name="Accept all cookies").click()
    await page.get_by_label("One-way").check()
    for label, text, code in (("From", "New York", "JFK"), ("To", "Los Angeles", "LAX")):
        await page.get_by_label(label, exact=True).press_sequentially(text, delay=10)
        await page.get_by_role("option", name=re.compile(rf"\({code}\)")).click()
    await page.get_by_label("Depart", exact=True).fill("2026-12-31")
    await page.get_by_role("button", name="Search flights").click()
    await page.get_by_role("tab", name="Cheapest").click()
    await page.screenshot(path=out / "travel.png")


async def jobs(page: Any, urls: dict, out: Path) -> None:
    await page.goto(urls["jobs"])
    await page.screenshot(path=out / "jobs.png")
    await page.goto(urls["jobs"] + "jobs/1042")
    await page.screenshot(path=out / "jobs-detail.png")


async def shop(page: Any, urls: dict, out: Path) -> None:
    await page.goto(urls["shop"])
    await page.wait_for_selector(".product img")
    await page.screenshot(path=out / "shop.png")
    await page.get_by_role("link", name=re.compile("Ridgeline Trail Runner 2")).first.click()
    await page.locator("label.opt", has_text=re.compile("^43$")).click()
    await page.get_by_role("button", name="Add to cart").click()
    await page.get_by_role("status").wait_for()
    await page.screenshot(path=out / "shop-product.png")
    await page.goto(urls["shop"] + "checkout")
    await page.get_by_label("Email").fill(SHOP_USER["email"])
    await page.get_by_label("Full name").fill(SHOP_USER["name"])
    await page.frame_locator("#card-frame").get_by_label("Card number").fill("4242424242424242")
    await page.screenshot(path=out / "shop-checkout.png", full_page=True)


async def social(page: Any, urls: dict, out: Path) -> None:
    await page.goto(urls["social"])
    await page.wait_for_selector("#online li")
    await page.wait_for_selector("article.post img.photo")
    await page.get_by_label("What's on your mind, Alex?").fill("Ran my first trail half marathon today: 2:04 at Barton Creek!")
    await page.screenshot(path=out / "social.png")


async def main(out: Path) -> None:
    from playwright.async_api import async_playwright

    out.mkdir(parents=True, exist_ok=True)
    with serve_sites() as served:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM)
            for shoot in (travel, jobs, shop, social):
                page = await browser.new_page(viewport={"width": 1280, "height": 800})
                await shoot(page, served.urls, out)
                await page.close()
            await browser.close()


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1] if len(sys.argv) > 1 else "sites/screenshots")))
