"""A command agent (a plain Playwright script): attaches to CLAWREC_CDP_URL, reads CLAWREC_TASK, fills the signup
form with the user's info and clicks "Sign up". Appends what it does to CLAWREC_AGENT_LOG.
`--linger S` keeps it running S seconds after the click (to test that the run stops it)."""

import asyncio
import json
import os
import sys
import time

from playwright.async_api import async_playwright


def log(role, content, **fields):
    with open(os.environ["CLAWREC_AGENT_LOG"], "a") as fh:
        fh.write(json.dumps({"ts": time.time(), "role": role, "content": content, **fields}) + "\n")


async def main():
    linger = float(sys.argv[sys.argv.index("--linger") + 1]) if "--linger" in sys.argv else 0
    task = json.load(open(os.environ["CLAWREC_TASK"]))
    user = task["user"]
    log("user", task["instruction"])
    print("agent: cdp", os.environ["CLAWREC_CDP_URL"], flush=True)
    async with async_playwright() as p:
        browser = await p.chromium.connect_over_cdp(os.environ["CLAWREC_CDP_URL"])
        context = browser.contexts[0]
        page = context.pages[0] if context.pages else await context.new_page()
        if not page.url.startswith(task["start_url"]):
            await page.goto(task["start_url"])
        await page.get_by_label("Full name").fill(f"{user['first_name']} {user['last_name']}")
        await page.get_by_label("Email").fill(user["email"])
        await page.get_by_label("Plan").select_option("pro")
        log("tool_call", "click Sign up", tool="click")
        await page.get_by_role("button", name="Sign up").click()
        await page.wait_for_function("document.getElementById('status').textContent !== 'sending'"
                                     " && document.getElementById('status').textContent !== ''")
        status = await page.text_content("#status")
        log("tool_result", status, tool="click")
        print("agent: status", status, flush=True)
        if linger:
            print("agent: lingering", flush=True)
            await asyncio.sleep(linger)
        # Do not close the browser: it is the run's browser, not ours.


asyncio.run(main())
