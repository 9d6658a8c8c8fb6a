"""A command agent that sends one request from the page, as a site's own script would: `post_agent.py PATH
CONTENT_TYPE BODY` → fetch(PATH, {method: POST, body}) in the start page; logs what it sent and the outcome."""

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
    path, content_type, body = sys.argv[1:4]
    task = json.load(open(os.environ["CLAWREC_TASK"]))
    async with async_playwright() as p:
        browser = await p.chromium.connect_over_cdp(os.environ["CLAWREC_CDP_URL"])
        context = browser.contexts[0]
        page = context.pages[0] if context.pages else await context.new_page()
        if not page.url.startswith(task["start_url"]):
            await page.goto(task["start_url"])
        log("tool_call", f"POST {path}", tool="fetch")
        result = await page.evaluate(
            """async ([path, type, body]) => {
                 try { const r = await fetch(path, {method: 'POST', headers: {'content-type': type}, body});
                       return 'status ' + r.status; }
                 catch (e) { return 'failed: ' + e.message; } }""", [path, content_type, body])
        log("tool_result", result, tool="fetch")


asyncio.run(main())
