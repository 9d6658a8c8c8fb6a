"""webmail: log in, open Priya's 'Team lunch on Thursday', Reply, replace the quote with the text, Send.
`--body B`: a wrong text for the one-field-wrong run."""

import argparse
import asyncio

from oscar_common import log
from playwright.async_api import async_playwright
from webmail_common import fill_compose, logged_in, send


async def main(body: str | None) -> None:
    async with async_playwright() as p:
        page, _, user = await logged_in(p)
        await page.get_by_text("Team lunch on Thursday").first.dblclick()  # the list row opens the message
        await page.wait_for_url("**_action=show**")
        log("tool_call", {"opened": "Team lunch on Thursday"}, tool="click")
        reply = page.locator("a.reply:not(.all)").first
        if await reply.is_visible():
            await reply.click()
        else:  # the toolbar folded away (narrow window): the command the Reply button runs
            await page.evaluate("rcmail.command('reply')")
        await page.wait_for_url("**_action=compose**")
        await fill_compose(page, None, None, body or user["body"])
        await send(page)
        await asyncio.sleep(30)


ap = argparse.ArgumentParser()
ap.add_argument("--body")
asyncio.run(main(ap.parse_args().body))
