"""helpdesk: a staff member logs in (an earlier write), opens "Typo on the pricing page", writes the public
resolution, picks Closed and saves: the respond form's POST to /tickets/<id>/update/, the final submission.
`--status VALUE`: a wrong value (3, Resolved) for the one-field-wrong run."""

import argparse
import asyncio

from helpdesk_common import staff_respond

RESOLUTION = "Fixed: the pricing page now says annual. Thank you for telling us."

ap = argparse.ArgumentParser()
ap.add_argument("--status", default="4")
args = ap.parse_args()
asyncio.run(staff_respond("Typo on the pricing page", comment=RESOLUTION, status=args.status))
