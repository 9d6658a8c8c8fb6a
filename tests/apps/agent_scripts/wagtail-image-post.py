"""wagtail: an editor uploads the task's photo on Images > Add images (the multiple-upload form posts it at once: the
earlier write, an image row and its file under media/original_images/), then opens the blog post "A winter soup",
chooses the photo in the image chooser and presses Publish (POST /admin/pages/7/edit/ with `action-publish` and
`image` = the new image's id: the final submission). `--no-image`: publish without choosing it, the one-field-wrong
run (the photo is still uploaded)."""

import argparse
import asyncio

from oscar_common import log, task as read_task
from wagtail_common import editor, open_post, publish


async def main(choose: bool) -> None:
    doc = read_task()
    photo = doc["files"][0]
    async with editor(doc) as (page, base):
        await page.goto(base + "admin/images/multiple/add/")
        async with page.expect_response(lambda r: r.url.endswith("/admin/images/multiple/add/")
                                        and r.request.method == "POST"):
            await page.set_input_files("#fileupload", photo)
        log("tool_call", {"uploaded": photo}, tool="upload")
        await open_post(page, base, "A winter soup")
        if choose:
            await page.locator("[data-chooser-action-choose]:visible").first.click()  # "Choose an image"
            await page.locator(".modal a[data-chooser-modal-choice]").first.click()
            await page.wait_for_function("document.querySelector('#id_image').value !== ''")
            log("tool_call", {"chose_image": await page.input_value("#id_image")}, tool="click")
        await publish(page)


ap = argparse.ArgumentParser()
ap.add_argument("--no-image", dest="choose", action="store_false")
asyncio.run(main(ap.parse_args().choose))
