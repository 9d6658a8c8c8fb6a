"""pretix: 3 Student tickets into the cart, then one removed again on the cart (its "−": POST /cart/remove), then the
2 left bought for Sam Lee and Jordan Park, bank transfer. The cart add carries 3, not the 2 ordered: the cart's
state (two positions) is what the task wants. `--guest NAME`: a wrong second attendee (the one-field-wrong run)."""

import argparse
import asyncio

from oscar_common import task as read_task
from pretix_common import add_to_cart, finish, remove_one, shop


async def main(guest: str) -> None:
    doc = read_task()
    async with shop(doc) as page:
        await add_to_cart(page, {"Student ticket": 3})
        await remove_one(page, "Student ticket")
        await finish(page, doc["user"]["email"], [{"name": doc["user"]["name"]}, {"name": guest}])


ap = argparse.ArgumentParser()
ap.add_argument("--guest", default="Jordan Park")
asyncio.run(main(ap.parse_args().guest))
