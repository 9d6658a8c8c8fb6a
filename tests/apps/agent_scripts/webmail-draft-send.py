"""webmail: log in, Compose, fill the form, Save (a draft on the IMAP server), then Send. `--subject S`: a wrong
subject for the one-field-wrong run."""

import argparse
import asyncio

from oscar_common import first_page, log, task
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
        log("tool_call", {"click": "Save"}, tool="click")
        async with page.expect_response(lambda r: r.request.method == "POST" and "_unlock=" in r.url):
            save = page.get_by_role("button", name="Save")
            if await save.count() and await save.first.is_visible():
                await save.first.click()
            else:  # the toolbar folded away (narrow window): the same command the Save button runs
                await page.evaluate("rcmail.command('savedraft')")
        await asyncio.sleep(1)
        await send(page)
        await asyncio.sleep(30)


ap = argparse.ArgumentParser()
ap.add_argument("--subject")
asyncio.run(main(ap.parse_args().subject))
