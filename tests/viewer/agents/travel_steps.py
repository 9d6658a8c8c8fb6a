"""A command agent that books the travel demo task one logged step at a time, the way an LLM agent's tool loop
does (a tool_call before each browser action, a tool_result after), with deliberate mistakes for the viewer and
diagnosis tests:

    travel_steps.py [--last-name NAME] [--skip-filter] [--stop-before-submit] [--claim TEXT] [--noisy-page]

`--skip-filter` skips the "Nonstop only" filter and the "Cheapest" sort (harmless: the first flight listed is
the cheapest nonstop anyway), `--stop-before-submit`
stops on the review page, `--claim` is the final message (e.g. a false "I booked it"), `--noisy-page` makes the
page log console errors, throw an uncaught error and carry a hostile title while the passenger is filled in.
Uses CLAWREC_CDP_URL, CLAWREC_TASK, CLAWREC_SITES and CLAWREC_AGENT_LOG like any command agent."""

import argparse
import asyncio
import json
import os
import re
import time

from playwright.async_api import async_playwright

from sites.drivers import TRAVEL, settle

HOSTILE_TITLE = "<script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\">Skylark"


def log(role, content, **fields):
    with open(os.environ["CLAWREC_AGENT_LOG"], "a") as fh:
        fh.write(json.dumps({"ts": time.time(), "role": role, "content": content, **fields}) + "\n")


PAGE = []


async def step(tool, args, act):
    log("tool_call", args, tool=tool)
    await act()
    await asyncio.sleep(0.15)  # let the recorder's screenshot of this step land inside it
    page = PAGE[0]
    log("tool_result", f"{tool} ok; page: {page.url} — {await page.title()}", tool=tool)


async def main(opts) -> None:
    task = json.load(open(os.environ["CLAWREC_TASK"]))
    urls = json.loads(os.environ["CLAWREC_SITES"])
    user = {**task["user"], **({"last_name": opts.last_name} if opts.last_name else {})}
    t = TRAVEL
    log("user", task["instruction"])
    async with async_playwright() as p:
        browser = await p.chromium.connect_over_cdp(os.environ["CLAWREC_CDP_URL"])
        context = browser.contexts[0]
        page = context.pages[0] if context.pages else await context.new_page()
        PAGE.append(page)
        await step("navigate", {"url": urls["travel"]}, lambda: page.goto(urls["travel"]))
        await step("click", {"element": "Accept all cookies"},
                   lambda: page.get_by_role("button", name="Accept all cookies").click())
        await step("click", {"element": "One-way"}, lambda: page.get_by_label("One-way").check())
        for label, text, code in (("From", t["from_text"], t["origin"]), ("To", t["to_text"], t["destination"])):
            box = page.get_by_label(label, exact=True)
            await step("type", {"element": label, "text": text}, lambda: box.press_sequentially(text, delay=20))
            await step("click", {"element": code},
                       lambda: page.get_by_role("option", name=re.compile(rf"\({code}\)")).click())
        await step("click", {"element": "Depart"}, lambda: page.get_by_label("Depart", exact=True).click())
        day = page.get_by_role("button", name=re.compile(r", December 31, 2026$"))
        for _ in range(24):
            if await day.count():
                break
            await step("click", {"element": "Next month"},
                       lambda: page.get_by_role("button", name="Next month").click())
        await step("click", {"element": "December 31"}, lambda: day.click())
        await step("select", {"element": "Cabin class", "value": t["cabin"]},
                   lambda: page.get_by_label("Cabin class").select_option(t["cabin"]))
        await step("click", {"element": "Search flights"},
                   lambda: page.get_by_role("button", name="Search flights").click())
        if not opts.skip_filter:
            await step("click", {"element": "Nonstop only"}, lambda: page.get_by_label("Nonstop only").check())
            await step("click", {"element": "Cheapest"}, lambda: page.get_by_role("tab", name="Cheapest").click())
        await step("click", {"element": "Select"}, lambda: page.locator("#results li.flight").first
                   .get_by_role("button", name=re.compile("^Select")).click())
        for label, key in (("First name", "first_name"), ("Last name", "last_name"),
                           ("Date of birth", "date_of_birth"), ("E-mail", "email"), ("Contact e-mail", "email"),
                           ("Mobile phone", "phone")):
            if opts.noisy_page and key == "date_of_birth":
                await step("evaluate", {"script": "page noise"}, lambda: page.evaluate(
                    "t => { console.error('seat map failed to load: HTTP 503', t); console.warn('slow network');"
                    " document.title = t; setTimeout(() => { throw new Error('boom in seat widget'); }, 0); }",
                    HOSTILE_TITLE))
            box = page.get_by_label(label, exact=True)
            await step("type", {"element": label, "text": user.get(key, "")}, lambda: box.fill(user.get(key, "")))
        await step("click", {"element": "Continue to review"},
                   lambda: page.get_by_role("button", name="Continue to review").click())
        if not opts.stop_before_submit:
            await step("click", {"element": "Confirm and book"},
                       lambda: page.get_by_role("button", name="Confirm and book").click())
            await settle(page, ["#booking-ref:not(:empty)", "#book-error:not([hidden])"])
        log("assistant", opts.claim or "Finished.")


parser = argparse.ArgumentParser()
parser.add_argument("--last-name")
parser.add_argument("--skip-filter", action="store_true")
parser.add_argument("--stop-before-submit", action="store_true")
parser.add_argument("--claim")
parser.add_argument("--noisy-page", action="store_true")
asyncio.run(main(parser.parse_args()))
