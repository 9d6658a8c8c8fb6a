"""A command agent for the secrets test: fills a login form (password from the task, which the spec reads from the
environment), the OTP the page shows, a card number and CVC and a member id (a `secrets:` user field), logs what it does WITH the
spec's secret values (agent.jsonl must still not hold them), echoes the password and the member id to its stdout
and stderr, each cut in two by a flush (agent.stdout.log / agent.stderr.log must not hold them), says the one-time
code in agent.jsonl before and after typing it, prints and types a new password (argv[1]) into a new-password
input, and clicks "Go"."""

import asyncio
import hashlib
import json
import os
import sys
import time

from playwright.async_api import async_playwright


def log(role, content, **fields):
    with open(os.environ["CLAWREC_AGENT_LOG"], "a") as fh:
        fh.write(json.dumps({"ts": time.time(), "role": role, "content": content, **fields}) + "\n")


async def main():
    print("agent: task file", os.environ["CLAWREC_TASK"], flush=True)
    task = json.load(open(os.environ["CLAWREC_TASK"]))
    user = task["user"]
    for name in ("password", "member_id"):  # echoed to stdout and stderr, each value cut in two by a flush
        for stream in (sys.stdout, sys.stderr):
            value = str(user[name])
            stream.write(f"echo {name}={value[:4]}")
            stream.flush()
            time.sleep(0.05)
            stream.write(f"{value[4:]} sha256={hashlib.sha256(value.encode()).hexdigest()}\n")
            stream.flush()
    async with async_playwright() as p:
        browser = await p.chromium.connect_over_cdp(os.environ["CLAWREC_CDP_URL"])
        page = browser.contexts[0].pages[0]
        if not page.url.startswith(task["start_url"]):
            await page.goto(task["start_url"])
        otp = (await page.text_content("#hint")).rsplit(" ", 1)[1]  # the page shows it, as an SMS would
        log("assistant", f"the code is {otp} (typing it)")  # before the run knows it: scrubbed at finalize
        print(f"agent: new password {sys.argv[1]}", flush=True)
        log("assistant", f"my pin is {user['pin']}")
        for label, value in (("User", user["username"]), ("Password", user["password"]), ("Code", otp),
                             ("Card", user["card"]), ("CVC", user["cvc"]), ("Member", user["member_id"]),
                             ("New password", sys.argv[1])):
            log("tool_call", f"fill {label} = {value}", tool="fill", args={"label": label, "value": value})
            await page.get_by_label(label, exact=True).click()
            await page.keyboard.type(str(value))
        await page.get_by_label("User", exact=True).click()  # the typing burst ends: the new password is recorded
        log("assistant", f"the code is {otp} (typed)")
        await page.get_by_role("button", name="Go").click()
        await page.wait_for_function("document.getElementById('status').textContent.startsWith('done')")
        log("tool_result", await page.text_content("#status"), tool="click")


asyncio.run(main())
