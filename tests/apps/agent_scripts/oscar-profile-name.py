"""oscar: log in, Profile → Edit profile, change the last name, Save. `--last-name N`: a wrong name for the
one-field-wrong run."""

import argparse
import asyncio

from oscar_common import base_of, first_page, log, login, task
from playwright.async_api import async_playwright


async def main(last_name: str | None) -> None:
    doc = task()
    user = doc["user"]
    base = base_of(doc["start_url"])
    async with async_playwright() as p:
        page = await first_page(p, doc["start_url"])
        await login(page, base, user["email"], user["password"])
        await page.goto(base + "accounts/profile/edit/")
        await page.fill("#id_last_name", last_name or user["new_last_name"])
        log("tool_call", {"click": "Save"}, tool="click", final=True)
        await page.click("#profile_form button[type=submit]")
        await asyncio.sleep(30)


ap = argparse.ArgumentParser()
ap.add_argument("--last-name")
asyncio.run(main(ap.parse_args().last_name))
