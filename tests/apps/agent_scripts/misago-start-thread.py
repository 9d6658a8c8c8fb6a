"""misago: start a thread in General: sign in, Start thread, title, category, text, then Start thread in the dialog:
the final submission, a JSON POST to /api/threads/ {title, category, post}. `--title T`: the one-field-wrong run."""

import argparse
import asyncio

from misago_common import final_click, signed_in

TEXT = "Saturday morning clean-up along the lake path, 9:00 at the north car park. Gloves and bags provided."


async def main(title: str) -> None:
    async with signed_in() as (page, task):
        await page.locator("button:has-text('Start thread'):visible").first.click()
        await page.fill(".posting-dialog input[placeholder='Thread title']", title)
        await page.select_option(".posting-dialog select", label="General")
        await page.fill("textarea.markup-editor-textarea", TEXT)
        await final_click(page.locator(".posting-dialog button[type=submit]:has-text('Start thread')"), "Start thread")


ap = argparse.ArgumentParser()
ap.add_argument("--title", default="Lake path clean-up this Saturday")
asyncio.run(main(ap.parse_args().title))
