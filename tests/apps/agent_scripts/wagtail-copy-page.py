"""wagtail: an editor copies the blog post "A winter soup" as "A winter soup for two": from the Blog index, open the
post, Actions > Copy, type the new title and slug, tick "Publish copy", then "Copy this page" (POST
/admin/pages/7/copy/ with new_title, new_slug, new_parent_page, publish_copies: the final submission; no earlier
write but the login). `--slug S`: a wrong slug for the one-field-wrong run."""

import argparse
import asyncio

from oscar_common import log, task as read_task
from wagtail_common import editor, final_click, open_post, page_action

TITLE = "A winter soup for two"


async def main(slug: str) -> None:
    doc = read_task()
    async with editor(doc) as (page, base):
        await open_post(page, base, "A winter soup")
        await page_action(page, "Copy", "/copy/")
        await page.fill("#id_new_title", TITLE)
        await page.fill("#id_new_slug", slug)
        await page.check("#id_publish_copies")
        log("tool_call", {"typed": {"new_title": TITLE, "new_slug": slug}, "checked": "publish_copies"}, tool="type")
        await final_click(page, "form[action$='/copy/'] input[type=submit]", "Copy this page")


ap = argparse.ArgumentParser()
ap.add_argument("--slug", default="winter-soup-for-two")
asyncio.run(main(ap.parse_args().slug))
