"""helpdesk: a staff member logs in (an earlier write), opens "Typo on the pricing page", writes the public
resolution, picks Closed and saves: the respond form's POST to /tickets/<id>/update/, the final submission.
`--status VALUE`: a wrong value (3, Resolved) for the one-field-wrong run."""

import argparse
import asyncio

from helpdesk_common import open_ticket, respond, staff_login
from oscar_common import first_page, task as read_task
from playwright.async_api import async_playwright

RESOLUTION = "Fixed: the pricing page now says annual. Thank you for telling us."


async def main(status: str) -> None:
    task = read_task()
    async with async_playwright() as p:
        page = await first_page(p, task["start_url"])  # in `clawrec record` the task page is a second tab
        await staff_login(page, task["user"])
        await open_ticket(page, "Typo on the pricing page")
        await respond(page, comment=RESOLUTION, status=status)
        await asyncio.sleep(30)  # the run ends when the interceptor catches the close (never reached)


ap = argparse.ArgumentParser()
ap.add_argument("--status", default="4")
asyncio.run(main(ap.parse_args().status))
