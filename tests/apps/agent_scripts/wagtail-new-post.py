"""wagtail: an editor writes a new blog post under Blog (title, date, text), presses Save draft (the add form's POST
creates the page as a draft: the earlier write, a page that is not live), then Publish on the edit form the draft
opens (POST /admin/pages/<new id>/edit/ with `action-publish`: the final submission). `--date D`: a wrong date for
the one-field-wrong run (the date is not in the instruction's words, so annotate's draft write does not compare it:
the judge names it once)."""

import argparse
import asyncio

from oscar_common import log, task as read_task
from wagtail_common import editor, publish, save_draft

TITLE = "Three apple cakes"
TEXT = "Our favourite recipes for the apple harvest."


async def main(date: str) -> None:
    doc = read_task()
    async with editor(doc) as (page, base):
        await page.goto(base + "admin/pages/4/")  # the Blog index in the page explorer
        async with page.expect_navigation():
            await page.locator("a[href$='/admin/pages/4/add_subpage/']").first.click()
        if "/add_subpage/" in page.url:  # a parent allowing several page types lists them first
            async with page.expect_navigation():
                await page.click("a:has-text('Blog page')")
        await page.wait_for_selector("#id_title")
        await page.locator("#id_title").press_sequentially(TITLE)  # keyup fills the slug, as for a person typing
        await page.locator("#id_title").blur()
        await page.fill("#id_date", date)
        await page.keyboard.press("Escape")  # the date picker's popup
        await page.click(".public-DraftEditor-content")
        await page.keyboard.type(TEXT)
        # Draftail writes its JSON into the hidden `body` input a moment after the last key (a debounce)
        await page.wait_for_function("document.querySelector('input[name=body]').value.includes('harvest')")
        log("tool_call", {"typed": {"title": TITLE, "date": date, "body": TEXT}}, tool="type")
        await save_draft(page)
        await publish(page)


ap = argparse.ArgumentParser()
ap.add_argument("--date", default="2026-11-20")
asyncio.run(main(ap.parse_args().date))
