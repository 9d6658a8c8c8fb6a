"""webmail: log in, Settings > Identities, set the signature and Save (the earlier write), then Compose, type the
text above the signature, Send. `--subject S`: a wrong subject for the one-field-wrong run; `--signature S`: a wrong
signature (fails twice: the identity save's _signature and the send's _message)."""

import argparse
import asyncio

from oscar_common import log
from playwright.async_api import async_playwright
from webmail_common import fill_compose, logged_in, send, type_above


async def main(signature: str | None, subject: str | None) -> None:
    async with async_playwright() as p:
        page, base, user = await logged_in(p)
        await page.goto(base + "?_task=settings&_action=identities")
        await page.get_by_text("alex@example.test").first.click()
        frame = page.frame_locator("#preferences-frame")
        await frame.locator("textarea[name=_signature]").fill(signature or user["signature"])
        log("tool_call", {"filled": "signature"}, tool="fill")
        async with page.expect_response(lambda r: r.request.method == "POST"
                                        and "save-identity" in (r.request.post_data or ""), timeout=150_000):
            save = page.get_by_role("button", name="Save", exact=True)
            if await save.count() and await save.first.is_visible():
                await save.first.click()
            else:  # the frame's Save as the command it runs
                await frame.locator("body").evaluate("() => rcmail.command('save')")
        await asyncio.sleep(1)
        await page.goto(base + "?_task=mail&_action=compose")
        await fill_compose(page, user["to"], subject or user["subject"], None)
        await type_above(page, user["body"])
        await send(page)
        await asyncio.sleep(30)


ap = argparse.ArgumentParser()
ap.add_argument("--signature")
ap.add_argument("--subject")
args = ap.parse_args()
asyncio.run(main(args.signature, args.subject))
