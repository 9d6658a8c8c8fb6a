"""pretix: one Regular ticket for Sam Lee answering the event's questions (Company "Acme GmbH", Dietary needs
"vegetarian"), bank transfer. The answers are stored with the cart position (pretixbase_questionanswer) at "Your
information": an earlier write. `--diet D`: a wrong answer (the one-field-wrong run)."""

import argparse
import asyncio

from oscar_common import task as read_task
from pretix_common import add_to_cart, finish, shop


async def main(diet: str) -> None:
    doc = read_task()
    async with shop(doc) as page:
        await add_to_cart(page, {"Regular ticket": 1})
        await finish(page, doc["user"]["email"], [{"name": doc["user"]["name"], "company": "Acme GmbH", "diet": diet}])


ap = argparse.ArgumentParser()
ap.add_argument("--diet", default="vegetarian")
asyncio.run(main(ap.parse_args().diet))
