"""oscar: register an account on the login page's second form (the same URL as the login form; the Register
button's name tells them apart). `--email E`: a wrong e-mail for the one-field-wrong run."""

import argparse
import asyncio

from oscar_common import first_page, log, task
from playwright.async_api import async_playwright


async def main(email: str | None) -> None:
    doc = task()
    user = doc["user"]
    async with async_playwright() as p:
        page = await first_page(p, doc["start_url"])
        await page.fill("#id_registration-email", email or user["email"])
        await page.fill("#id_registration-password1", user["password"])
        await page.fill("#id_registration-password2", user["password"])
        log("tool_call", {"click": "Register"}, tool="click", final=True)
        await page.click("button[name=registration_submit]")
        await asyncio.sleep(30)  # the run ends when the interceptor catches it


ap = argparse.ArgumentParser()
ap.add_argument("--email")
asyncio.run(main(ap.parse_args().email))
