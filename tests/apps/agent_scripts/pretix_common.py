"""What the pretix agent scripts share: a buyer's way through pretix's shop, one step a function. Each step is a form
POST pretix keeps (the cart add makes cart positions; add-ons, "Your information" and payment are stored with the
cart or its session); the last click, "Place binding order" on the review page, is the final submission."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from oscar_common import first_page, log

CONTINUE = ".checkout-button-row button.btn-primary"


@asynccontextmanager
async def shop(doc: dict) -> AsyncIterator[Any]:
    """The task's browser page on the event's shop (the spec's start_url)."""
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        page = await first_page(p, doc["start_url"])
        await page.wait_for_load_state("load")
        yield page


async def add_to_cart(page: Any, counts: dict[str, int]) -> None:
    """Type each product's quantity on the shop page and press "Add to cart" (pretix reserves them: cart positions),
    then wait for the shop page showing the cart."""
    for label, count in counts.items():
        await page.fill(f"article:has(h4:has-text('{label}')) input.input-item-count", str(count))
    log("tool_call", {"add_to_cart": counts}, tool="click")
    async with page.expect_navigation(url="**require_cookie=true**", timeout=120_000):
        await page.click("#btn-add-to-cart")
    await page.wait_for_selector(".cart-row")


async def checkout(page: Any) -> None:
    """The cart's "Continue": into the checkout (its first step)."""
    async with page.expect_navigation(url="**/checkout/**"):
        await page.locator(":is(a,button):has-text('Continue')").first.click()
    await page.wait_for_selector(CONTINUE)


async def next_step(page: Any, label: str) -> None:
    """Press the step's Continue (its form POST) and wait for the next step's page."""
    log("tool_call", {"click": f"Continue ({label})"}, tool="click")
    url = page.url
    async with page.expect_navigation(url=lambda u: u != url, timeout=120_000):
        await page.click(CONTINUE)
    await page.wait_for_selector(CONTINUE)


async def addons(page: Any, shirts: int = 0) -> None:
    """On "Add-on products", tick the T-shirt of the first `shirts` tickets, then Continue (skipped if absent)."""
    if "/addons/" not in page.url:
        return
    boxes = page.locator("input[type=checkbox][name^=cp_]")
    for i in range(shirts):
        await boxes.nth(i).check()
    await next_step(page, "add-on products")


async def your_information(page: Any, email: str, attendees: list[dict[str, str]]) -> None:
    """On "Your information": the order's e-mail, then per ticket the attendee's name and any answers given
    (`company`, `diet`: pretix's questions Company and Dietary needs), then Continue."""
    await page.fill("#id_email", email)
    if await page.locator("#id_email_repeat").count():
        await page.fill("#id_email_repeat", email)
    for i, person in enumerate(attendees):
        await page.locator("input[name$='-attendee_name_parts_0']").nth(i).fill(person["name"])
        for key, label in (("company", "Company"), ("diet", "Dietary needs")):
            if person.get(key):
                field = page.locator(f".form-group:has(label:text-is('{label}')) input").nth(i)
                await field.fill(person[key])
    log("tool_call", {"email": email, "attendees": attendees}, tool="type")
    await next_step(page, "your information")


async def bank_transfer(page: Any) -> None:
    """On "Payment", choose bank transfer and Continue to the review page."""
    await page.check("input[name=payment][value=banktransfer]")
    await next_step(page, "payment")


async def place_order(page: Any) -> None:
    """Say the next click is the final submission, press "Place binding order" on the review page and wait: the run
    ends when the interceptor catches it (the person Blocks it). A free order's button says "Submit registration"."""
    button = page.locator("form[data-asynctask] .checkout-button-row button[type=submit]")
    await button.wait_for()
    log("tool_call", {"click": (await button.inner_text()).strip()}, tool="click", final=True)
    await button.click()
    await asyncio.sleep(30)


async def redeem_voucher(page: Any, code: str) -> None:
    """Type a voucher code in the shop's "Redeem a voucher" box and open the voucher's product page (a GET)."""
    await page.fill("#voucher", code)
    log("tool_call", {"voucher": code}, tool="type")
    async with page.expect_navigation(url="**/redeem**"):
        await page.click("button:has-text('Redeem voucher')")
    await page.wait_for_selector("#btn-add-to-cart")


async def remove_one(page: Any, label: str) -> None:
    """The cart's "−" on a product's line: pretix removes one of its cart positions (POST /cart/remove)."""
    log("tool_call", {"remove_one": label}, tool="click")
    async with page.expect_navigation(url="**require_cookie=true**", timeout=120_000):
        await page.click(f"button[title='Remove one {label} from your cart']")
    await page.wait_for_selector(".cart-row")


async def finish(page: Any, email: str, attendees: list[dict[str, str]], shirts: int = 0, pay: bool = True) -> None:
    """From the cart to the final click: Continue, add-ons, "Your information", bank transfer (when the order costs
    something), then "Place binding order"."""
    await checkout(page)
    await addons(page, shirts)
    await your_information(page, email, attendees)
    if pay:
        await bank_transfer(page)
    await place_order(page)
