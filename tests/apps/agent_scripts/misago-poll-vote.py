"""misago: vote in the poll of "Next meetup: pick a date" for Sunday 13 December: sign in, open the thread, pick
the choice, Save your vote: the final submission, a JSON POST to /api/threads/<id>/poll/<id>/votes/ whose body is
a bare list of choice hashes (no earlier write but the sign-in). `--choice LABEL`: the one-field-wrong run."""

import argparse
import asyncio

from misago_common import final_click, signed_in


async def main(choice: str) -> None:
    async with signed_in() as (page, task):
        await page.click("text=Next meetup: pick a date")
        await page.locator(f".poll-select-choice button:has-text('{choice}')").click()
        await final_click(page.locator("button[type=submit]:has-text('Save your vote')"), "Save your vote")


ap = argparse.ArgumentParser()
ap.add_argument("--choice", default="Sunday 13 December")
asyncio.run(main(ap.parse_args().choice))
