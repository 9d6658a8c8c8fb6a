"""webmail: log in, Compose, fill To, Subject and text, Send. `--subject S`: a wrong subject for the
one-field-wrong run."""

import argparse
import asyncio

from playwright.async_api import async_playwright
from webmail_common import fill_compose, open_compose, send


async def main(subject: str | None) -> None:
    async with async_playwright() as p:
        page, user = await open_compose(p)
        await fill_compose(page, user["to"], subject or user["subject"], user["body"])
        await send(page)
        await asyncio.sleep(30)


ap = argparse.ArgumentParser()
ap.add_argument("--subject")
asyncio.run(main(ap.parse_args().subject))
