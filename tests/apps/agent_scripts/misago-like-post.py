"""misago: like Jordan's reply (the north loop tip) in "Best trails near the lake?": sign in, open the thread, press
Like under that post: the final submission, a JSON PATCH to /api/threads/<id>/posts/<id>/ whose body is a list of
operations [{"op": "replace", "path": "is-liked", "value": true}]. `--post N`: like the N-th post instead
(0-based; the wrong-post run: the URL carries the post, the body is the same)."""

import argparse
import asyncio

from misago_common import final_click, signed_in


async def main(post: int) -> None:
    async with signed_in() as (page, task):
        await page.click("text=Best trails near the lake?")
        like = page.locator("button:has-text('Like'):visible").nth(post)
        await like.wait_for()
        await final_click(like, "Like")


ap = argparse.ArgumentParser()
ap.add_argument("--post", type=int, default=1)
asyncio.run(main(ap.parse_args().post))
