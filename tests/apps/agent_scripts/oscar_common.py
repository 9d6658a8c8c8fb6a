"""What the oscar agent scripts share: the agent log, the task, the browser's first page, and logging in the way a
person does (the account page's login form)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any


def log(role: str, content: Any, **fields: Any) -> None:
    """One agent message in CLAWREC_AGENT_LOG; `final=True` right before the final submission (the scripted person
    in hold mode Blocks what follows, tests/apps/make_reference.py)."""
    with open(os.environ["CLAWREC_AGENT_LOG"], "a") as fh:
        fh.write(json.dumps({"ts": time.time(), "role": role, "content": content, **fields}) + "\n")


def task() -> dict:
    with open(os.environ["CLAWREC_TASK"]) as fh:
        doc = json.load(fh)
    log("user", doc["instruction"])
    return doc


async def first_page(p: Any, start_url: str) -> Any:
    browser = await p.chromium.connect_over_cdp(os.environ["CLAWREC_CDP_URL"])
    page = next((pg for c in browser.contexts for pg in c.pages if pg.url.startswith(start_url)), None)
    page = page or browser.contexts[0].pages[0]
    await page.bring_to_front()
    if not page.url.startswith(start_url):
        await page.goto(start_url)
    return page


async def login(page: Any, base: str, email: str, password: str) -> None:
    if not page.url.startswith(base + "accounts/login/"):
        await page.goto(base + "accounts/login/")
    await page.wait_for_load_state("load")  # the start page may still be loading: a form sent from it fails
    await page.fill("#id_login-username", email)
    await page.fill("#id_login-password", password)
    async with page.expect_navigation():
        await page.click("button[name=login_submit]")
    log("tool_call", {"logged_in": email}, tool="click")


def base_of(start_url: str) -> str:
    """The app's root URL (the spec's {sites.oscar})."""
    return start_url.split("/catalogue/")[0].split("/accounts/")[0].rstrip("/") + "/"


@asynccontextmanager
async def logged_in(doc: dict) -> AsyncIterator[tuple[Any, str, dict]]:
    """(page, the app's root URL, the task's user) in the task's browser, logged in as the task's user."""
    from playwright.async_api import async_playwright

    base = base_of(doc["start_url"])
    async with async_playwright() as p:
        page = await first_page(p, doc["start_url"])
        await login(page, base, doc["user"]["email"], doc["user"]["password"])
        yield page, base, doc["user"]
