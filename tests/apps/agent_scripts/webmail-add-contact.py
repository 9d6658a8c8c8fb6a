"""webmail: log in, Contacts, Create, fill first name, last name and e-mail in the contact frame, Save.
`--email E`: a wrong address for the one-field-wrong run."""

import argparse
import asyncio

from oscar_common import log
from playwright.async_api import async_playwright
from webmail_common import logged_in


async def main(email: str | None) -> None:
    async with async_playwright() as p:
        page, base, user = await logged_in(p)
        await page.goto(base + "?_task=addressbook")
        await page.locator("a.create").first.click()
        frame = page.frame_locator("#contact-frame")
        await frame.locator("input[name=_firstname]").fill(user["firstname"])
        await frame.locator("input[name=_surname]").fill(user["surname"])
        await frame.locator("input[name^=_email]").first.fill(email or user["email"])
        log("tool_call", {"filled": {"name": f"{user['firstname']} {user['surname']}"}}, tool="fill")
        log("tool_call", {"click": "Save"}, tool="click", final=True)
        save = page.get_by_role("button", name="Save", exact=True)
        if await save.count() and await save.first.is_visible():
            await save.first.click()
        else:  # Elastic shows the frame's Save in the layout's footer; else the command the button runs
            await frame.locator("body").evaluate("() => rcmail.command('save')")
        await asyncio.sleep(30)


ap = argparse.ArgumentParser()
ap.add_argument("--email")
asyncio.run(main(ap.parse_args().email))
