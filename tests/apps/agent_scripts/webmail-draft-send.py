"""webmail: log in, Compose, fill the form, Save (a draft on the IMAP server), then Send. `--subject S`: a wrong
subject for the one-field-wrong run."""

import argparse
import asyncio

from oscar_common import log
from playwright.async_api import async_playwright
from webmail_common import fill_compose, open_compose, send


async def main(subject: str | None) -> None:
    async with async_playwright() as p:
        page, user = await open_compose(p)
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
