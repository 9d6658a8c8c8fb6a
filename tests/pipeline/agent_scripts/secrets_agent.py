"""A command agent for the secrets test: fills a login form (password from the task, which the spec reads from the
environment), the OTP the page shows, a card number and CVC and a member id (a `secrets:` user field), logs what it does WITH the
spec's secret values (agent.jsonl must still not hold them), and clicks "Go"."""

import asyncio
import json
import os
import time

from playwright.async_api import async_playwright


def log(role, content, **fields):
    with open(os.environ["CLAWREC_AGENT_LOG"], "a") as fh:
        fh.write(json.dumps({"ts": time.time(), "role": role, "content": content, **fields}) + "\n")


async def main():
    print("agent: task file", os.environ["CLAWREC_TASK"], flush=True)
    task = json.load(open(os.environ["CLAWREC_TASK"]))
    user = task["user"]
    async with async_playwright() as p:
        browser = await p.chromium.connect_over_cdp(os.environ["CLAWREC_CDP_URL"])
        page = browser.contexts[0].pages[0]
        if not page.url.startswith(task["start_url"]):
            await page.goto(task["start_url"])
        otp = (await page.text_content("#hint")).rsplit(" ", 1)[1]  # the page shows it, as an SMS would
        for label, value in (("User", user["username"]), ("Password", user["password"]), ("Code", otp),
                             ("Card", user["card"]), ("CVC", user["cvc"]), ("Member", user["member_id"])):
            shown = "(code)" if label == "Code" else value  # a value only the page knows is not the run's to scrub
            log("tool_call", f"fill {label} = {shown}", tool="fill", args={"label": label, "value": shown})
            await page.get_by_label(label, exact=True).click()
            await page.keyboard.type(str(value))
        await page.get_by_role("button", name="Go").click()
        await page.wait_for_function("document.getElementById('status').textContent.startsWith('done')")
        log("tool_result", await page.text_content("#status"), tool="click")


asyncio.run(main())
