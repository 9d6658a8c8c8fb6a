"""wagtail: an editor retitles the blog post "A winter soup", saves a draft (an earlier write: one more revision,
the live page unchanged), then publishes from the same edit form (the same URL; Publish adds `action-publish`).
`--title T`: a wrong title (typed before the draft: any edit after the draft starts Wagtail 8's autosave, whose
multipart POST to the same URL raced the Publish click, which was then never sent)."""

import argparse
import asyncio

from oscar_common import task as read_task
from wagtail_common import editor, open_post, publish, save_draft


async def main(title: str) -> None:
    doc = read_task()
    async with editor(doc) as (page, base):
        await open_post(page, base, "A winter soup")
        await page.fill("#id_title", title)
        await save_draft(page)
        await publish(page)


ap = argparse.ArgumentParser()
ap.add_argument("--title", default="A winter leek soup")
asyncio.run(main(ap.parse_args().title))
