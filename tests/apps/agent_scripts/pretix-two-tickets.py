"""pretix: buy 2 Regular tickets for PyConf 2026 for Sam Lee and Alex Kim, pay by bank transfer. The cart add and
"Your information" are earlier writes (cart positions with the attendee names); "Place binding order" is the final.
`--guest NAME`: a wrong second attendee name (the one-field-wrong run)."""

import argparse
import asyncio

from oscar_common import task as read_task
from pretix_common import add_to_cart, finish, shop


async def main(guest: str) -> None:
    doc = read_task()
    async with shop(doc) as page:
        await add_to_cart(page, {"Regular ticket": 2})
        await finish(page, doc["user"]["email"], [{"name": doc["user"]["name"]}, {"name": guest}])


ap = argparse.ArgumentParser()
ap.add_argument("--guest", default="Alex Kim")
asyncio.run(main(ap.parse_args().guest))
