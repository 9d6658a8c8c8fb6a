"""A command agent that orders on the basket shop (sites/basket) the way a person would, right or wrong on purpose:
`basket_agent.py [--quantity N] [--postcode P] [--skip-address]`. Uses CLAWREC_CDP_URL, CLAWREC_TASK, CLAWREC_SITES."""

import argparse
import asyncio
import json
import os
import time

from playwright.async_api import async_playwright

from sites.basket.driver import QUANTITY, drive_basket


def log(role, content, **fields):
    with open(os.environ["CLAWREC_AGENT_LOG"], "a") as fh:
        fh.write(json.dumps({"ts": time.time(), "role": role, "content": content, **fields}) + "\n")


async def main(args: argparse.Namespace) -> None:
    task = json.load(open(os.environ["CLAWREC_TASK"]))
    user = dict(task["user"])
    if args.postcode is not None:
        user["address"] = {**user["address"], "postcode": args.postcode}
    log("user", task["instruction"])
    async with async_playwright() as p:
        browser = await p.chromium.connect_over_cdp(os.environ["CLAWREC_CDP_URL"])
        context = browser.contexts[0]
        page = context.pages[0] if context.pages else await context.new_page()
        log("tool_call", {"driver": "basket"}, tool="drive")
        await drive_basket(page, json.loads(os.environ["CLAWREC_SITES"]), user, quantity=args.quantity,
                           skip_address=args.skip_address)
        log("tool_result", f"driver finished on {page.url}", tool="drive")


parser = argparse.ArgumentParser()
parser.add_argument("--quantity", type=int, default=QUANTITY)
parser.add_argument("--postcode")
parser.add_argument("--skip-address", action="store_true")
asyncio.run(main(parser.parse_args()))
