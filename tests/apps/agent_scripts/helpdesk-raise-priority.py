"""helpdesk: a staff member logs in (an earlier write), opens "Login page times out", writes the internal note,
unticks Public, sets Priority to Critical under "Update ticket details" and saves: the respond form's POST to
/tickets/<id>/update/, the final submission. `--priority VALUE`: a wrong value for the one-field-wrong run."""

import argparse
import asyncio

from helpdesk_common import staff_respond

NOTE = "Affects every customer who logs in; raising to critical."

ap = argparse.ArgumentParser()
ap.add_argument("--priority", default="1")
args = ap.parse_args()
asyncio.run(staff_respond("Login page times out", comment=NOTE, public=False, priority=args.priority))
