"""helpdesk: a staff member logs in, takes "Charged twice in October" (owner sam, not public, Save: a POST to
/tickets/<id>/update/ that is an earlier write the task needs), then replies publicly and saves: a second POST to the
same URL, the final submission; only the fields tell them apart. `--comment TEXT`: a wrong reply; `--internal`: the
reply saved with Public off (caught by the rule's `nonempty: [comment]`; the judge FAILs it on `public`)."""

import argparse
import asyncio

from helpdesk_common import open_ticket, respond, staff_login
from oscar_common import first_page, log, task as read_task
from playwright.async_api import async_playwright

REPLY = "I am looking into the double charge and will write again by Friday."


async def take(page, owner: str) -> None:
    """The first save: the owner only, an internal update (no mail to the customer)."""
    await page.click("#respond-tab")
    await page.uncheck("#id_public")
    await page.click("a[href='#collapseDetails']")
    await page.wait_for_selector("#id_owner", state="visible")
    await page.select_option("#id_owner", label=owner)
    async with page.expect_navigation():
        await page.click("#ticket-respond-form button[type=submit]")
    log("tool_call", {"took": owner}, tool="click")


async def main(comment: str, public: bool) -> None:
    task = read_task()
    async with async_playwright() as p:
        page = await first_page(p, task["start_url"])  # in `clawrec record` the task page is a second tab
        await staff_login(page, task["user"])
        await open_ticket(page, "Charged twice in October")
        await take(page, task["user"]["username"])
        await page.wait_for_selector("#ticket-respond-form", state="attached")
        await respond(page, comment=comment, public=public)
        await asyncio.sleep(30)  # the run ends when the interceptor catches the reply (never reached)


ap = argparse.ArgumentParser()
ap.add_argument("--comment", default=REPLY)
ap.add_argument("--internal", action="store_true")
args = ap.parse_args()
asyncio.run(main(args.comment, not args.internal))
