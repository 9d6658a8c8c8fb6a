"""misago: a private message to jordan: sign in, the navbar's private threads (inbox) link, Start thread, the
recipient, title and text, then Start thread in the dialog: the final submission, a JSON POST to
/api/private-threads/ {to: [usernames], title, post, attachments}. `--to NAME`: the one-field-wrong run (a message
to the wrong person)."""

import argparse
import asyncio

from misago_common import final_click, signed_in

TEXT = "I have a spare seat in my car for the meetup, happy to pick you up at 18:30."


async def main(to: str) -> None:
    async with signed_in() as (page, task):
        await page.locator("a[href$='/private-threads/']:visible").first.click()
        await page.locator("button:has-text('Start thread'):visible").first.click()
        await page.fill(".posting-dialog-thread-recipients input", to)
        await page.fill(".posting-dialog-thread-title input", "Spare seat for the meetup")
        await page.fill("textarea.markup-editor-textarea", TEXT)
        await final_click(page.locator(".posting-dialog button[type=submit]"), "Start thread")


ap = argparse.ArgumentParser()
ap.add_argument("--to", default="jordan")
asyncio.run(main(ap.parse_args().to))
