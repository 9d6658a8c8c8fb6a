"""A command agent for specs/salesforce/sf-create-lead.yaml: it finds itself logged in on the New Lead page, makes
two side effects the rules do not block (creates a Contact, changes the seeded Account's phone: the reset must
undo both), then fills the lead form with the Company read from the page and clicks Save (the terminal request).
`--crash` exits with an error right after the side effects. Prints what it saw (`agent: …`) to stdout, which the
run keeps in agent.stdout.log."""

import asyncio
import json
import os
import sys

from playwright.async_api import async_playwright


async def main():
    task = json.load(open(os.environ["CLAWREC_TASK"]))
    user = task["user"]
    async with async_playwright() as p:
        browser = await p.chromium.connect_over_cdp(os.environ["CLAWREC_CDP_URL"])
        page = browser.contexts[0].pages[0]
        await page.wait_for_selector("#lead", timeout=30000)
        print("agent: url", page.url, "start", task["start_url"], flush=True)
        account = page.locator("#accounts li").first
        company, account_id = await account.text_content(), await account.get_attribute("data-id")
        side = await page.evaluate("""async (accountId) => {
            const h = {'content-type': 'application/json'};
            const c = await fetch('/services/data/v62.0/sobjects/Contact/', {method: 'POST', headers: h,
                                  body: JSON.stringify({LastName: 'Scratch', FirstName: 'Temp'})});
            const a = await fetch('/services/data/v62.0/sobjects/Account/' + accountId, {method: 'PATCH', headers: h,
                                  body: JSON.stringify({Phone: '000'})});
            return [c.status, a.status];
        }""", account_id)
        print("agent: side effects", side, flush=True)
        if "--crash" in sys.argv:
            raise SystemExit("agent: crashing after the side effects")
        await page.get_by_label("First Name").fill(user["first_name"])
        await page.get_by_label("Last Name").fill(user["last_name"])
        await page.get_by_label("Company").fill(company)
        await page.get_by_label("Email").fill(user["email"])
        await page.get_by_role("button", name="Save").click()
        await page.wait_for_function("document.getElementById('status').textContent.startsWith('saved') ||"
                                     " document.getElementById('status').textContent === 'failed'")
        print("agent: status", await page.text_content("#status"), flush=True)


asyncio.run(main())
