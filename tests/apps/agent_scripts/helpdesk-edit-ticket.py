"""helpdesk: a staff member logs in (an earlier write), opens "Login page times out", Actions > Edit, changes the
title and the description and presses Save Changes: one POST to /tickets/<id>/edit/, the final submission.
`--title T`: a wrong value for the one-field-wrong run."""

import argparse
import asyncio

from helpdesk_common import open_ticket, staff_login
from oscar_common import first_page, log, task as read_task
from playwright.async_api import async_playwright

DESCRIPTION = "On Safari 17 the login page spins for a minute, then fails. Chrome works."


async def main(title: str) -> None:
    task = read_task()
    async with async_playwright() as p:
        page = await first_page(p, task["start_url"])  # in `clawrec record` the task page is a second tab
        await staff_login(page, task["user"])
        await open_ticket(page, "Login page times out")
        await page.click("button.dropdown-toggle:has-text('Actions')")
        async with page.expect_navigation():
            await page.click("a.dropdown-item[href$='/edit/']")
        await page.fill("#id_title", title)
        await page.fill("#id_description", DESCRIPTION)
        log("tool_call", {"click": "Save Changes"}, tool="click", final=True)  # the person Blocks what follows
        await page.click("input[type=submit][value='Save Changes']")
        await asyncio.sleep(30)  # the run ends when the interceptor catches the edit (never reached)


ap = argparse.ArgumentParser()
ap.add_argument("--title", default="Login page times out on Safari")
asyncio.run(main(ap.parse_args().title))
