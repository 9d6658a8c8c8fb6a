"""helpdesk: a staff member logs in, saves their settings with "E-mail me on ticket change" off (a POST to
/settings/: an earlier write the task needs), opens "Login page times out" and saves a public reply: the respond
form's POST to /tickets/<id>/update/, the final submission. `--comment TEXT`: a wrong reply."""

import argparse
import asyncio

from helpdesk_common import open_ticket, respond, staff_login
from oscar_common import first_page, log, task as read_task
from playwright.async_api import async_playwright

REPLY = "We found the cause and are deploying a fix today; please try again tomorrow."


async def main(comment: str) -> None:
    task = read_task()
    async with async_playwright() as p:
        page = await first_page(p, task["start_url"])  # in `clawrec record` the task page is a second tab
        await staff_login(page, task["user"])
        await page.goto(task["start_url"].removesuffix("login/") + "settings/")
        await page.uncheck("#id_email_on_ticket_change")
        async with page.expect_navigation():
            await page.click("input[type=submit][value='Save Changes']")
        log("tool_call", {"saved": "settings"}, tool="click")
        await page.goto(task["start_url"].removesuffix("login/"))
        await open_ticket(page, "Login page times out")
        await respond(page, comment=comment)
        await asyncio.sleep(30)  # the run ends when the interceptor catches the reply (never reached)


ap = argparse.ArgumentParser()
ap.add_argument("--comment", default=REPLY)
asyncio.run(main(ap.parse_args().comment))
