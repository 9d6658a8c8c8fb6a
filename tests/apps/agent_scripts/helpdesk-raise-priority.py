"""helpdesk: a staff member logs in (an earlier write), opens "Login page times out", writes the internal note,
unticks Public, sets Priority to Critical under "Update ticket details" and saves: the respond form's POST to
/tickets/<id>/update/, the final submission. `--priority VALUE`: a wrong value for the one-field-wrong run."""

import argparse
import asyncio

from helpdesk_common import open_ticket, respond, staff_login
from oscar_common import first_page, task as read_task
from playwright.async_api import async_playwright

NOTE = "Affects every customer who logs in; raising to critical."


async def main(priority: str) -> None:
    task = read_task()
    async with async_playwright() as p:
        page = await first_page(p, task["start_url"])  # in `clawrec record` the task page is a second tab
        await staff_login(page, task["user"])
        await open_ticket(page, "Login page times out")
        await respond(page, comment=NOTE, public=False, priority=priority)
        await asyncio.sleep(30)  # the run ends when the interceptor catches the update (never reached)


ap = argparse.ArgumentParser()
ap.add_argument("--priority", default="1")
asyncio.run(main(ap.parse_args().priority))
