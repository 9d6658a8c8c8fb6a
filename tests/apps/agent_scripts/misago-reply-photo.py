"""misago: reply in the thread "Best trails near the lake?" with a photo: sign in, open the thread, Reply, type
the reply, upload the photo in the editor (POST /api/attachments/: the earlier write, an attachment stored with no
post yet), then Post reply: the final submission, a JSON POST to /api/threads/<id>/posts/ with the text and the
attachment's id. `--text T`: a wrong reply for the one-field-wrong run."""

import argparse
import asyncio

from misago_common import final_click, log, signed_in

REPLY = "Went up the north loop on Saturday: clear skies from the ridge. Photo attached."


async def main(text: str) -> None:
    async with signed_in() as (page, task):
        await page.click("text=Best trails near the lake?")
        await page.locator("button:has-text('Reply'):visible").first.click()
        await page.fill("textarea.markup-editor-textarea", text)
        async with page.expect_file_chooser() as chooser:
            await page.click("button.btn-markup-editor[title='Upload file']")
        async with page.expect_response(lambda r: "/api/attachments/" in r.url and r.request.method == "POST"):
            await (await chooser.value).set_files(task["files"][0])
        log("tool_call", {"uploaded": task["files"][0]}, tool="upload")
        await page.wait_for_selector(".markup-editor-attachment, .editor-attachment, li:has-text('north-loop.png')")
        await final_click(page.locator("button[type=submit]:has-text('Post reply')"), "Post reply")


ap = argparse.ArgumentParser()
ap.add_argument("--text", default=REPLY)
asyncio.run(main(ap.parse_args().text))
