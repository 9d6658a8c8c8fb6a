"""A command agent for answer mode: `submit_answer.py ANSWER_FILE` opens the submit page the instruction names,
types the answer and presses Submit, the way a browser agent ends an answer-mode task. Uses CLAWREC_CDP_URL and
CLAWREC_TASK; logs to CLAWREC_AGENT_LOG."""

import asyncio
import json
import os
import re
import sys
import time
from pathlib import Path

from playwright.async_api import async_playwright


def log(role, content, **fields):
    with open(os.environ["CLAWREC_AGENT_LOG"], "a") as fh:
        fh.write(json.dumps({"ts": time.time(), "role": role, "content": content, **fields}) + "\n")


async def main(answer_file: str) -> None:
    task = json.load(open(os.environ["CLAWREC_TASK"]))
    url = re.search(r"http://127\.0\.0\.1:\d+/submit", task["instruction"]).group(0)
    answer = Path(answer_file).read_text()
    log("user", task["instruction"])
    log("user", "mailbox: " + json.dumps(task["user"]["email"]) + " " + json.dumps(task["user"]["email_password"]))
    async with async_playwright() as p:
        browser = await p.chromium.connect_over_cdp(os.environ["CLAWREC_CDP_URL"])
        context = browser.contexts[0]
        page = context.pages[0] if context.pages else await context.new_page()
        log("tool_call", {"goto": url}, tool="browser")
        await page.goto(url)
        await page.fill("#answer", answer)
        log("tool_call", {"click": "#submit"}, tool="browser")
        await page.click("#submit", no_wait_after=True)
        await asyncio.sleep(30)  # the run stops on the catch; never reached when the answer is caught


asyncio.run(main(sys.argv[1]))
