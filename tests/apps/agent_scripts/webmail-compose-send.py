"""webmail: log in, Compose, fill To, Subject and text, Send. `--subject S`: a wrong subject for the
one-field-wrong run."""

import argparse
import asyncio

from oscar_common import first_page, task
from playwright.async_api import async_playwright
from webmail_common import fill_compose, login, send


async def main(subject: str | None) -> None:
    doc = task()
    user = doc["user"]
    base = doc["start_url"]
    async with async_playwright() as p:
        page = await first_page(p, base)
        await login(page, base, user["username"], user["password"])
        await page.goto(base + "?_task=mail&_action=compose")  # the Compose button's link (headless: its JS may lag)
        await fill_compose(page, user["to"], subject or user["subject"], user["body"])
        await send(page)
        await asyncio.sleep(30)


ap = argparse.ArgumentParser()
ap.add_argument("--subject")
asyncio.run(main(ap.parse_args().subject))
