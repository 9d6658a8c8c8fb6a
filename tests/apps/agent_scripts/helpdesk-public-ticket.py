"""helpdesk: a customer files a ticket on the public form (queue, title, description, priority, the screenshot as
an attachment, their e-mail) and presses Submit Ticket: one multipart POST, the final submission.
`--priority VALUE` / `--title T`: a wrong value for the one-field-wrong runs."""

import argparse
import asyncio

from oscar_common import first_page, log, task as read_task  # (the app scripts' shared opening)
from playwright.async_api import async_playwright

DESCRIPTION = "Clicking Send on the contact page does nothing: no message, no error, the form stays filled in."


async def main(priority: str, title: str) -> None:
    task = read_task()
    async with async_playwright() as p:
        page = await first_page(p, task["start_url"])  # in `clawrec record` the task page is a second tab
        await page.select_option("#id_queue", label="Website")
        await page.fill("#id_title", title)
        await page.fill("#id_body", DESCRIPTION)
        await page.select_option("#id_priority", value=priority)
        await page.set_input_files("#id_attachment", task["files"][0])
        await page.fill("#id_submitter_email", task["user"]["email"])
        log("tool_call", {"click": "Submit Ticket"}, tool="click", final=True)  # the person Blocks what follows
        await page.click("form[enctype='multipart/form-data'] button[type=submit]")
        await asyncio.sleep(30)  # the run ends when the interceptor catches the ticket (never reached)


ap = argparse.ArgumentParser()
ap.add_argument("--priority", default="2")
ap.add_argument("--title", default="Contact form Send button does nothing")
args = ap.parse_args()
asyncio.run(main(args.priority, args.title))
