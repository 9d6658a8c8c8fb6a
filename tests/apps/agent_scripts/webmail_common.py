"""What the webmail agent scripts share: logging in to Roundcube the way a person does, and the compose form."""

from __future__ import annotations

from typing import Any

from oscar_common import first_page, log, task


async def login(page: Any, base: str, username: str, password: str) -> None:
    if not await page.locator("#rcmloginuser").count():
        await page.goto(base)
    await page.wait_for_load_state("load")
    await page.fill("#rcmloginuser", username)
    await page.fill("#rcmloginpwd", password)
    async with page.expect_navigation():
        await page.click("#rcmloginsubmit")
    log("tool_call", {"logged_in": username}, tool="click")


async def fill_compose(page: Any, to: str | None, subject: str | None, body: str | None) -> None:
    """The compose form (open): recipients typed into the recipient widget, subject, plain-text body."""
    await page.wait_for_selector("#compose-subject")
    if to:
        await page.locator(".recipient-input input").first.fill(to + ", ")
    if subject is not None:
        await page.fill("#compose-subject", subject)
    if body is not None:
        await page.fill("#composebody", body)
    log("tool_call", {"filled": {"to": to, "subject": subject}}, tool="fill")


async def send(page: Any) -> None:
    log("tool_call", {"click": "Send"}, tool="click", final=True)
    await page.get_by_role("button", name="Send").first.click()


async def logged_in(p: Any) -> tuple[Any, str, dict]:
    """Log in from the task's start page: (page, base URL, the spec's user)."""
    doc = task()
    base = doc["start_url"]
    page = await first_page(p, base)
    await login(page, base, doc["user"]["username"], doc["user"]["password"])
    return page, base, doc["user"]


async def open_compose(p: Any) -> tuple[Any, dict]:
    """Log in and open Compose (the Compose button's link: headless, its JS may lag)."""
    page, base, user = await logged_in(p)
    await page.goto(base + "?_task=mail&_action=compose")
    return page, user


async def open_and_press(page: Any, subject: str, command: str) -> None:
    """Open the inbox message with this subject (double-click its row) and press the toolbar button that runs
    `command` (reply, forward); when the toolbar folded away (narrow window), run the command the button runs."""
    await page.get_by_text(subject).first.dblclick()
    await page.wait_for_url("**_action=show**")
    log("tool_call", {"opened": subject}, tool="click")
    button = page.locator(f"a.{command}:not(.all)").first
    if await button.is_visible():
        await button.click()
    else:
        await page.evaluate(f"rcmail.command('{command}')")
    await page.wait_for_url("**_action=compose**")


async def type_above(page: Any, text: str) -> None:
    """Type `text` at the top of the plain-text body, above what Roundcube put there (forwarded text, signature)."""
    body = page.locator("#composebody")
    await body.press("Control+Home")
    await body.type(text)
    log("tool_call", {"typed": text}, tool="type")
