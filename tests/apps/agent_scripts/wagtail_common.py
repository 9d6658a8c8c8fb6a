"""What the wagtail agent scripts share: logging in to Wagtail's admin the way an editor does (its login form)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from oscar_common import first_page, log


def base_of(start_url: str) -> str:
    """The site's root URL (the spec's {sites.wagtail})."""
    return start_url.split("/admin/")[0].rstrip("/") + "/"


@asynccontextmanager
async def editor(doc: dict) -> AsyncIterator[tuple[Any, str]]:
    """(page, the site's root URL) in the task's browser, logged in to the admin as the task's user."""
    from playwright.async_api import async_playwright

    base = base_of(doc["start_url"])
    async with async_playwright() as p:
        page = await first_page(p, doc["start_url"])
        if not page.url.startswith(base + "admin/login/"):
            await page.goto(base + "admin/login/")
        await page.wait_for_load_state("load")
        await page.fill("#id_username", doc["user"]["username"])
        await page.fill("#id_password", doc["user"]["password"])
        async with page.expect_navigation():
            await page.click("form button[type=submit]")
        log("tool_call", {"logged_in": doc["user"]["username"]}, tool="click")
        yield page, base


async def open_post(page: Any, base: str, title: str) -> None:
    """Open a blog post's edit form the way an editor finds it: the Blog index's children in the page explorer."""
    await page.goto(base + "admin/pages/4/")
    async with page.expect_navigation():
        await page.click(f"a:has-text('{title}')")
    await page.wait_for_selector("#id_title")


async def page_action(page: Any, label: str, path: str) -> None:
    """Pick `label` in the edit form's header Actions menu (Unpublish, Copy, ...) and wait for its page (`path`)."""
    await page.click("header button[aria-label='Actions']")
    async with page.expect_navigation(url=lambda u: path in u):
        await page.click(f"a:has-text('{label}')")


async def save_draft(page: Any) -> None:
    """Press "Save draft" (an earlier write: the add or edit form's POST) and wait for the edit form it opens."""
    log("tool_call", {"click": "Save draft"}, tool="click")
    async with page.expect_navigation(url="**/admin/pages/*/edit/"):
        await page.click("button[type=submit]:has-text('Save draft')")
    await page.wait_for_selector("#id_title")


async def final_click(page: Any, selector: str, label: str) -> None:
    """Say the next click is the final submission, click, and wait: the run ends when the interceptor catches it
    (the scripted person Blocks it), so the wait is never reached to its end."""
    log("tool_call", {"click": label}, tool="click", final=True)
    await page.click(selector)
    await asyncio.sleep(30)


async def publish(page: Any) -> None:
    """Open the edit form's "More actions" menu and press Publish (the final submission)."""
    await page.click("button:has-text('More actions')")
    await final_click(page, "button[name=action-publish]", "Publish")
