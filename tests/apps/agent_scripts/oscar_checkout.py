"""A command agent (scripted, Playwright over CLAWREC_CDP_URL) doing the oscar guest checkout the way a person
does: product page → Add to basket → basket: quantity → Update → checkout as guest → shipping address → preview →
Place order. `oscar_checkout.py [--quantity N] [--postcode P]`: a wrong value for the one-field-wrong runs;
`--hold-final FILE`: after saying the next click is the final one, wait until FILE exists (the fail-closed test kills
clawrec there), then click and say so."""

import argparse
import asyncio
import json
import os
import time

from playwright.async_api import async_playwright


def log(role, content, **fields):
    with open(os.environ["CLAWREC_AGENT_LOG"], "a") as fh:
        fh.write(json.dumps({"ts": time.time(), "role": role, "content": content, **fields}) + "\n")


async def main(quantity: str, postcode: str | None, hold_final: str | None) -> None:
    task = json.load(open(os.environ["CLAWREC_TASK"]))
    user = task["user"]
    log("user", task["instruction"])
    async with async_playwright() as p:
        browser = await p.chromium.connect_over_cdp(os.environ["CLAWREC_CDP_URL"])
        page = browser.contexts[0].pages[0]
        if not page.url.startswith(task["start_url"]):
            await page.goto(task["start_url"])
        await page.get_by_role("link", name="The Clockwork Garden").first.click()
        await page.get_by_role("button", name="Add to basket").click()
        await page.wait_for_load_state()
        await page.get_by_role("link", name="View basket").first.click()
        await page.fill("input[name='form-0-quantity']", quantity)
        async with page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/basket/")):
            await page.get_by_role("button", name="Update").first.click()  # (Oscar's basket.js: an XHR)
        await page.get_by_role("link", name="Proceed to checkout").first.click()
        await page.fill("#id_username", user["email"])
        await page.check("#id_options_0")
        async with page.expect_navigation():
            await page.get_by_role("button", name="Continue").click()
        await page.fill("#id_first_name", user["first_name"])
        await page.fill("#id_last_name", user["last_name"])
        await page.fill("#id_line1", user["line1"])
        await page.fill("#id_line4", user["city"])
        await page.fill("#id_postcode", postcode or user["postcode"])
        async with page.expect_navigation():
            await page.get_by_role("button", name="Continue").click()
        await page.get_by_role("link", name="Continue").first.click()
        await page.wait_for_selector("#place-order")
        log("tool_call", {"click": "Place order"}, tool="click", final=True)  # the person Blocks what follows
        while hold_final and not os.path.exists(hold_final):
            await asyncio.sleep(0.05)
        await page.click("#place-order", no_wait_after=bool(hold_final))
        if hold_final:  # the fail-closed test kills a frozen clawrec once the order is on its way
            log("tool_call", {"clicked": "Place order"}, tool="click")
        await asyncio.sleep(30)  # the run ends when the interceptor catches the order (never reached)


ap = argparse.ArgumentParser()
ap.add_argument("--quantity", default="2")
ap.add_argument("--postcode")
ap.add_argument("--hold-final")
args = ap.parse_args()
asyncio.run(main(args.quantity, args.postcode, args.hold_final))
