"""webmail: log in, open Priya's 'Team lunch on Thursday', Reply, replace the quote with the text, Send.
`--body B`: a wrong text for the one-field-wrong run."""

import argparse
import asyncio

from playwright.async_api import async_playwright
from webmail_common import fill_compose, logged_in, open_and_press, send


async def main(body: str | None) -> None:
    async with async_playwright() as p:
        page, _, user = await logged_in(p)
        await open_and_press(page, "Team lunch on Thursday", "reply")
        await fill_compose(page, None, None, body or user["body"])
        await send(page)
        await asyncio.sleep(30)


ap = argparse.ArgumentParser()
ap.add_argument("--body")
asyncio.run(main(ap.parse_args().body))
