"""webmail: log in, open Sam's invoice e-mail, Forward (inline), type To and a note above the forwarded text, Send.
`--to A`: a wrong recipient for the one-field-wrong run."""

import argparse
import asyncio

from playwright.async_api import async_playwright
from webmail_common import fill_compose, logged_in, open_and_press, send, type_above


async def main(to: str | None) -> None:
    async with async_playwright() as p:
        page, _, user = await logged_in(p)
        await open_and_press(page, "Invoice 2231 from Rivera Design", "forward")
        await fill_compose(page, to or user["to"], None, None)
        await type_above(page, user["note"] + "\n")
        await send(page)
        await asyncio.sleep(30)


ap = argparse.ArgumentParser()
ap.add_argument("--to")
asyncio.run(main(ap.parse_args().to))
