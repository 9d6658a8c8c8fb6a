"""Complete the basket shop's demo task as a person would (sites/drivers.py registers it as `basket`).

The keyword arguments make the wrong runs the judge must catch (tests/pipeline/test_whole_submission.py): another
quantity, an address with another value, or the address step skipped (the preview page is opened directly).
"""

from __future__ import annotations

import re
from typing import Any

PRODUCT = "Stoneware mug"
QUANTITY = 2


async def drive_basket(page: Any, urls: dict, user: dict, files: dict | None = None, *, quantity: int = QUANTITY,
                       skip_address: bool = False) -> None:
    """Add the mug, set its quantity in the basket, check out as a guest, give the address, place the order."""
    from sites.drivers import settle

    base = urls["basket"]
    await page.goto(base)
    async with page.expect_navigation():
        await page.get_by_role("button", name=f"Add {PRODUCT} to basket").click()
    await page.get_by_label(f"Quantity of {PRODUCT}").fill(str(quantity))
    async with page.expect_navigation():
        await page.get_by_role("button", name="Update basket").click()
    await page.get_by_role("link", name="Proceed to checkout").click()
    await page.get_by_label("Email address").fill(user.get("email", ""))
    async with page.expect_navigation():
        await page.get_by_role("button", name="Continue").click()
    address = user.get("address") or {}
    if skip_address:
        await page.goto(base + "checkout/preview/")
    else:
        await page.get_by_label("First name").fill(user.get("first_name", ""))
        await page.get_by_label("Last name").fill(user.get("last_name", ""))
        await page.get_by_label("First line of address").fill(address.get("line1", ""))
        await page.get_by_label("City").fill(address.get("city", ""))
        await page.get_by_label("Post/Zip-code").fill(str(address.get("postcode", "")))
        await page.get_by_label("Country").select_option(address.get("country", "FR"))
        async with page.expect_navigation():
            await page.get_by_role("button", name="Continue").click()
    await page.wait_for_url(re.compile(r"/checkout/preview/$"))
    await page.get_by_role("button", name="Place order").click()
    await settle(page, ["#order-number", ".error", "#main-frame-error"])  # the last: Chromium's own error page
