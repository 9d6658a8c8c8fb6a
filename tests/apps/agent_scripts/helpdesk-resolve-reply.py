"""helpdesk: a staff member logs in (an earlier write the task needs), opens the Billing ticket "Charged twice in
October", writes the public reply and picks Resolved, then Save: the respond form's POST to /tickets/<id>/update/, the
final submission. `--status VALUE` / `--comment TEXT`: a wrong value for the one-field-wrong runs."""

import argparse
import asyncio

from helpdesk_common import open_ticket, respond, staff_login
from oscar_common import first_page, task as read_task
from playwright.async_api import async_playwright

REPLY = "We have refunded the second charge of 49.00; it will show on your card within 5 days."


async def main(status: str, comment: str) -> None:
    task = read_task()
    async with async_playwright() as p:
        page = await first_page(p, task["start_url"])  # in `clawrec record` the task page is a second tab
        await staff_login(page, task["user"])
        await open_ticket(page, "Charged twice in October")
        await respond(page, comment=comment, status=status)
        await asyncio.sleep(30)  # the run ends when the interceptor catches the reply (never reached)


ap = argparse.ArgumentParser()
ap.add_argument("--status", default="3")
ap.add_argument("--comment", default=REPLY)
args = ap.parse_args()
asyncio.run(main(args.status, args.comment))
