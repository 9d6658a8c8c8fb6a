"""pretix: one Student ticket for Sam Lee with the T-shirt add-on, bank transfer. The add-on is its own step (POST
/checkout/addons/ with the ticket's checkbox: a second cart position, the shirt, bound to the ticket). `--name N`: a
wrong attendee name (the one-field-wrong run)."""

import argparse
import asyncio

from oscar_common import task as read_task
from pretix_common import add_to_cart, finish, shop


async def main(name: str) -> None:
    doc = read_task()
    async with shop(doc) as page:
        await add_to_cart(page, {"Student ticket": 1})
        await finish(page, doc["user"]["email"], [{"name": name}], shirts=1)


ap = argparse.ArgumentParser()
ap.add_argument("--name", default="Sam Lee")
asyncio.run(main(ap.parse_args().name))
