"""misago: edit alex's own reply in "Best trails near the lake?" to add the car park's hours: sign in, open the
thread, Edit on the own post, replace the text, then the dialog's submit: the final submission, a JSON PUT to
/api/threads/<id>/posts/<id>/ {post, ...}. `--text T`: the one-field-wrong run."""

import argparse
import asyncio

from misago_common import final_click, signed_in

TEXT = "Agreed on the north loop, but start early: the car park fills by nine and closes at eight."


async def main(text: str) -> None:
    async with signed_in() as (page, task):
        await page.click("text=Best trails near the lake?")
        await page.locator("button.btn-sm:has-text('Edit'):visible").first.click()
        editor = page.locator("textarea.markup-editor-textarea")
        await editor.wait_for()
        await page.wait_for_function("() => document.querySelector('textarea.markup-editor-textarea').value.length")
        await editor.fill(text)
        await final_click(page.locator(".posting-dialog button[type=submit]"), "save the edit")


ap = argparse.ArgumentParser()
ap.add_argument("--text", default=TEXT)
asyncio.run(main(ap.parse_args().text))
