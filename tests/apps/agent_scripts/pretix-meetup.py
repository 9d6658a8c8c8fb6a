"""pretix: register Sam Lee for the free Python Meetup (one "Free admission"). A free order has no payment step:
the cart add and "Your information" are the earlier writes, "Place binding order" the final. `--name N`: a wrong
attendee name (the one-field-wrong run)."""

import argparse
import asyncio

from oscar_common import task as read_task
from pretix_common import add_to_cart, finish, shop


async def main(name: str) -> None:
    doc = read_task()
    async with shop(doc) as page:
        await add_to_cart(page, {"Free admission": 1})
        await finish(page, doc["user"]["email"], [{"name": name}], pay=False)


ap = argparse.ArgumentParser()
ap.add_argument("--name", default="Sam Lee")
asyncio.run(main(ap.parse_args().name))
