"""pretix: one Regular ticket with the voucher EARLYBIRD (-25 %: 90 EUR), for Sam Lee, bank transfer. Redeeming is a
GET (the voucher's product page); the cart add carries _voucher_code. `--quantity N`: a wrong number of tickets
(the one-field-wrong run; each ticket gets the buyer's name)."""

import argparse
import asyncio

from oscar_common import task as read_task
from pretix_common import add_to_cart, finish, redeem_voucher, shop


async def main(quantity: int) -> None:
    doc = read_task()
    async with shop(doc) as page:
        await redeem_voucher(page, "EARLYBIRD")
        await add_to_cart(page, {"Regular ticket": quantity})
        await finish(page, doc["user"]["email"], [{"name": doc["user"]["name"]}] * quantity)


ap = argparse.ArgumentParser()
ap.add_argument("--quantity", type=int, default=1)
asyncio.run(main(ap.parse_args().quantity))
