"""`manage.py seed_desk`: the snapshot's small deterministic help desk (run once, right after migrate).

Two queues open to the public form (Website, Billing), one staff member (sam / clawrec-pass, a spec secret) and
three open tickets from customers. Idempotent: a second run changes nothing.
"""

from django.contrib.auth import get_user_model
from django.contrib.sites.models import Site
from django.core.management.base import BaseCommand
from helpdesk.models import Queue, Ticket

QUEUES = [("Website", "website"), ("Billing", "billing")]
TICKETS = [  # (queue slug, title, submitter, priority, description)
    ("website", "Login page times out", "dana@example.com", 2, "The login page spins for a minute, then fails."),
    ("billing", "Charged twice in October", "lee@example.com", 3, "My card shows two charges of 49.00."),
    ("website", "Typo on the pricing page", "kim@example.com", 4, "It says 'anual' instead of 'annual'."),
]


class Command(BaseCommand):
    help = "Seed the desk's queues, one staff user and three open tickets (deterministic, idempotent)."

    def handle(self, *args, **options):
        Site.objects.update_or_create(id=1, defaults={"domain": "127.0.0.1", "name": "Clawrec Support"})
        user, made = get_user_model().objects.get_or_create(username="sam", defaults={
            "email": "sam@clawrec.test", "first_name": "Sam", "last_name": "Staff", "is_staff": True})
        if made:
            user.set_password("clawrec-pass")
            user.save()
        queues = {}
        for title, slug in QUEUES:
            queues[slug], _ = Queue.objects.get_or_create(slug=slug, defaults={
                "title": title, "allow_public_submission": True, "email_address": f"{slug}@clawrec.test"})
        for slug, title, submitter, priority, text in TICKETS:
            Ticket.objects.get_or_create(title=title, defaults={
                "queue": queues[slug], "submitter_email": submitter, "priority": priority, "description": text,
                "status": Ticket.OPEN_STATUS})
