"""webmail: log in, Compose, fill To, Subject and text, attach lunch-menu.txt (Roundcube uploads it at once:
the earlier write), Send. `--subject S`: a wrong subject for the one-field-wrong run."""

import argparse
import asyncio
import tempfile
from pathlib import Path

from oscar_common import log
from playwright.async_api import async_playwright
from webmail_common import fill_compose, open_compose, send


async def main(subject: str | None) -> None:
    async with async_playwright() as p:
        page, user = await open_compose(p)
        await fill_compose(page, user["to"], subject or user["subject"], user["body"])
        menu = Path(tempfile.mkdtemp()) / "lunch-menu.txt"
        menu.write_text("Thursday 12:30\nSoup, salad, pasta\n")
        async with page.expect_response(lambda r: r.request.method == "POST" and "_action=upload" in r.url):
            await page.set_input_files("#uploadform input[type=file]", str(menu))
        log("tool_call", {"attached": menu.name}, tool="upload")
        await page.wait_for_selector("#attachment-list li:not(.uploading)")
        await send(page)
        await asyncio.sleep(30)


ap = argparse.ArgumentParser()
ap.add_argument("--subject")
asyncio.run(main(ap.parse_args().subject))
