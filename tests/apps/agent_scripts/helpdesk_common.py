"""What the helpdesk staff scripts share: logging in on the desk's login page (an earlier write: Django stamps
last_login), opening a ticket by its title, and the ticket page's respond form (one POST to /tickets/<id>/update/
carries a reply, a new status, the owner, the priority and the title: the tasks differ by fields only)."""

from __future__ import annotations

import asyncio
from typing import Any

from oscar_common import first_page, log, task as read_task
from playwright.async_api import async_playwright


async def staff_login(page: Any, user: dict) -> None:
    await page.fill("input[name=username]", user["username"])
    await page.fill("input[name=password]", user["password"])
    async with page.expect_navigation():
        await page.click("form[role=form] button[type=submit], form[role=form] input[type=submit]")
    log("tool_call", {"logged_in": user["username"]}, tool="click")


async def open_ticket(page: Any, title: str) -> None:
    """The dashboard lists the open tickets; the ticket's own page follows its link."""
    await page.get_by_role("link", name=title).first.click()
    await page.wait_for_selector("#ticket-respond-form", state="attached")


async def respond(page: Any, *, comment: str = "", status: str | None = None, public: bool = True,
                  owner: str | None = None, priority: str | None = None) -> None:
    """Fill the respond form (Respond tab; owner and priority under Change Further Details) and press Save, the
    final submission: `final: true` is logged right before the click."""
    if await page.locator("#respond-tab").count():
        await page.click("#respond-tab")
    await page.wait_for_selector("#commentBox", state="visible")
    await page.fill("#commentBox", comment)
    if status is not None:
        await page.check(f"#ticket-respond-form input[name=new_status][value='{status}']")
    if not public and await page.locator("#id_public").count() and await page.locator("#id_public").is_checked():
        await page.uncheck("#id_public")
    if owner is not None or priority is not None:
        await page.click("a[href='#collapseDetails']")
        await page.wait_for_selector("#id_owner", state="visible")
        if owner is not None:
            await page.select_option("#id_owner", label=owner)
        if priority is not None:
            await page.select_option("#id_priority", value=priority)
    log("tool_call", {"click": "Save"}, tool="click", final=True)  # the person Blocks what follows
    await page.click("#ticket-respond-form button[type=submit]")


async def staff_respond(title: str, **fields: Any) -> None:
    """The whole of a one-update task: log in, open the ticket `title`, fill the respond form with `fields` (as
    `respond`) and Save; the run ends when the interceptor catches the update (the sleep is never reached)."""
    task = read_task()
    async with async_playwright() as p:
        page = await first_page(p, task["start_url"])  # in `clawrec record` the task page is a second tab
        await staff_login(page, task["user"])
        await open_ticket(page, title)
        await respond(page, **fields)
        await asyncio.sleep(30)
