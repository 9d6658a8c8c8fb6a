"""What the misago agent scripts share: signing in the way a person does (the Sign in button's modal, which posts
/api/auth/ then the /login/ form) and finding the thread list's links. The log and task are oscar_common's."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from oscar_common import first_page, log, task as read_task


async def sign_in(page: Any, username: str, password: str) -> None:
    await page.wait_for_load_state("load")
    await page.locator("button.btn-sign-in:visible").first.click()
    await page.fill(".modal #id_username", username)
    await page.fill(".modal #id_password", password)
    async with page.expect_navigation(url="**/?ref=login*", timeout=60_000):
        await page.click(".modal button.btn-primary")
    log("tool_call", {"signed_in": username}, tool="click")


@asynccontextmanager
async def signed_in() -> AsyncIterator[tuple[Any, dict]]:
    """(page, the task) in the task's browser, signed in as the task's user."""
    from playwright.async_api import async_playwright

    doc = read_task()
    async with async_playwright() as p:
        page = await first_page(p, doc["start_url"])
        await sign_in(page, doc["user"]["username"], doc["user"]["password"])
        yield page, doc


async def final_click(target: Any, what: str) -> None:
    """Log `final: true` (the scripted person Blocks what follows), click `target` (a locator), then wait: the run
    ends when the interceptor catches the request the click sends (the sleep's end is never reached)."""
    log("tool_call", {"click": what}, tool="click", final=True)
    await target.click()
    await asyncio.sleep(30)
