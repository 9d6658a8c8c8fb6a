"""wagtail: an editor changes the text of the announcement snippet "Opening hours" (Snippets > Announcements) and
presses Save: the snippet edit form's POST, the final submission (the snippet has no draft state: one write; the
editing-session pings POST meanwhile). `--text T`: a wrong text for the one-field-wrong run."""

import argparse
import asyncio

from oscar_common import log, task as read_task
from wagtail_common import editor, final_click

TEXT = "The office is closed from 24 to 26 December."


async def main(text: str) -> None:
    doc = read_task()
    async with editor(doc) as (page, base):
        await page.goto(base + "admin/snippets/")
        async with page.expect_navigation():
            await page.click("a:has-text('Announcements')")
        async with page.expect_navigation():
            await page.click("a:has-text('Opening hours')")
        await page.wait_for_selector("#id_text")
        await page.fill("#id_text", text)
        log("tool_call", {"typed": {"text": text}}, tool="type")
        await final_click(page, "#w-editor-form button[type=submit].action-save", "Save")


ap = argparse.ArgumentParser()
ap.add_argument("--text", default=TEXT)
asyncio.run(main(ap.parse_args().text))
