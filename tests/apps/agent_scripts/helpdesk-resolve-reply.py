"""helpdesk: a staff member logs in (an earlier write the task needs), opens the Billing ticket "Charged twice in
October", writes the public reply and picks Resolved, then Save: the respond form's POST to /tickets/<id>/update/, the
final submission. `--status VALUE` / `--comment TEXT`: a wrong value for the one-field-wrong runs."""

import argparse
import asyncio

from helpdesk_common import staff_respond

REPLY = "We have refunded the second charge of 49.00; it will show on your card within 5 days."

ap = argparse.ArgumentParser()
ap.add_argument("--status", default="3")
ap.add_argument("--comment", default=REPLY)
args = ap.parse_args()
asyncio.run(staff_respond("Charged twice in October", comment=args.comment, status=args.status))
