"""A command agent for the Salesforce stand-in's Lightning pages (tests/support/salesforce_lightning.py).

`lead` (specs/salesforce/sf-create-lead.yaml): on the New Lead page it first tries REST with the browser's session
(refused: UI sessions are not API-enabled), then makes two side effects the Lead rules must not catch: an inline
edit of the seeded Account's phone (the org's edit shape: Aura saveRecord or updateRecord, UI API PATCH) and a new
Contact on that account; then it reads the company from the account page and saves the lead (the terminal
request). `--lead-only` skips the side effects, `--crash` exits with an error right after them, `--email X` types
another email.
`contact` (sf-create-contact.yaml): opens the account, New Contact, fills it in, saves (the save lands).
`edit` (sf-edit-account-phone.yaml): opens the account, edits its phone inline (`--phone X`), saves.
Prints what it saw (`agent: …`) to stdout, which the run keeps in agent.stdout.log."""

import asyncio
import json
import os
import sys

from playwright.async_api import async_playwright


def arg(name, default=None):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


async def saved(page):
    """The toast's text once the save is answered (or refused: a caught request fails in the page)."""
    await page.wait_for_function("(t => t && t !== 'Saving…')(document.getElementById('toast').textContent)")
    return await page.text_content("#toast")


async def open_account(page, base):
    await page.goto(base + "/lightning/o/Account/list")
    await page.get_by_role("link", name="Acme Analytical Engines").click()
    await page.wait_for_selector("section[aria-label=Contacts]")
    return (await page.text_content("h1")).strip()


async def lead(page, base, user):
    if "--lead-only" not in sys.argv:
        status = await page.evaluate("""async () => (await fetch('/services/data/v62.0/sobjects/Lead/', {
            method: 'POST', credentials: 'same-origin', headers: {'content-type': 'application/json'},
            body: JSON.stringify({LastName: 'Sneaky', Company: 'REST'})})).status""")
        print("agent: REST with the session cookie", status, flush=True)
    company = await open_account(page, base)
    if "--lead-only" not in sys.argv:
        print("agent: inline edit", await edit_phone(page, "000"), flush=True)
        await page.get_by_role("button", name="New Contact").click()
        await page.get_by_label("Last Name").fill("Scratch")
        await page.get_by_role("button", name="Save").click()
        print("agent: contact", await saved(page), flush=True)
    if "--crash" in sys.argv:
        raise SystemExit("agent: crashing after the side effects")
    await page.goto(base + "/lightning/o/Lead/new")
    await page.get_by_label("First Name").fill(user["first_name"])
    await page.get_by_label("Last Name").fill(user["last_name"])
    await page.get_by_label("Company").fill(company)
    await page.get_by_label("Email").fill(arg("--email", user["email"]))
    await page.get_by_role("button", name="Save").click()
    print("agent: lead", await saved(page), flush=True)


async def edit_phone(page, phone):
    await page.get_by_role("button", name="Edit Phone").click()
    await page.get_by_label("Phone", exact=True).fill(phone)
    await page.get_by_role("button", name="Save").click()
    return await saved(page)


async def edit(page, base, user):
    await open_account(page, base)
    print("agent: edit", await edit_phone(page, arg("--phone", "+44 20 7946 0999")), flush=True)


async def contact(page, base, user):
    await open_account(page, base)
    await page.get_by_role("button", name="New Contact").click()
    await page.get_by_label("First Name").fill(user["first_name"])
    await page.get_by_label("Last Name").fill(user["last_name"])
    await page.get_by_label("Email").fill(user["email"])
    await page.get_by_role("button", name="Save").click()
    print("agent: contact", await saved(page), flush=True)


async def main():
    task = json.load(open(os.environ["CLAWREC_TASK"]))
    async with async_playwright() as p:
        browser = await p.chromium.connect_over_cdp(os.environ["CLAWREC_CDP_URL"])
        page = browser.contexts[0].pages[0]
        await page.wait_for_selector("main h1", timeout=30000)
        print("agent: url", page.url, "start", task["start_url"], flush=True)
        base = task["start_url"].split("/lightning/")[0]
        await {"contact": contact, "edit": edit}.get(sys.argv[1], lead)(page, base, task["user"])


asyncio.run(main())
