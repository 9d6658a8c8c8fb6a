"""oscar: log in, open the book's page, Write a review: title, 4 stars (a click on the 4th star, as a person
does; Oscar's ui.js sets the hidden score select), the text, Save review. `--score N`: a wrong rating for the
one-field-wrong run; `--book TITLE`: another book (the review's URL names it: a wrong URL the rule must still catch)."""

import argparse
import asyncio

from oscar_common import log, logged_in, task


async def main(score: str | None, book: str | None) -> None:
    async with logged_in(task()) as (page, base, user):
        await page.goto(base + "catalogue/")
        await page.get_by_role("link", name=book or user["book"]).first.click()
        await page.get_by_role("link", name="Write a review").first.click()
        await page.wait_for_selector("#add_review_form")
        await page.fill("#id_title", user["review_title"])
        await page.click(f".reviewrating .star-rating i:nth-child({score or user['review_score']})")
        await page.fill("#id_body", user["review_body"])
        log("tool_call", {"click": "Save review"}, tool="click", final=True)
        await page.click("#add_review_form button[type=submit]")
        await asyncio.sleep(30)


ap = argparse.ArgumentParser()
ap.add_argument("--score")
ap.add_argument("--book")
args = ap.parse_args()
asyncio.run(main(args.score, args.book))
