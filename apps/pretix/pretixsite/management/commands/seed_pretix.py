"""Seed the ticket shop the tasks use: one organizer, a paid conference and a free meetup, both live.

Why these objects: they are what an everyday ticket purchase touches (two ticket types, an add-on, a quota, an
attendee question, a voucher) and a payment method (bank transfer) that completes a checkout with no payment
provider, so the final "place binding order" is the only write the tasks hold back.
"""

from datetime import timedelta
from decimal import Decimal

from django.core.management.base import BaseCommand
from django.utils.timezone import now
from django_scopes import scopes_disabled
from i18nfield.strings import LazyI18nString


class Command(BaseCommand):
    help = "Seed clawrec's pretix shop (organizer demo, events conf2026 and meetup)."

    def handle(self, *args, **options) -> None:
        from pretix.base.models import (Event, Item, ItemAddOn, ItemCategory, Organizer, Question, Quota,
                                        Voucher)

        with scopes_disabled():
            # bank transfer is an event-and-organizer plugin: active only when both list it
            org = Organizer.objects.create(name="Demo Events", slug="demo", plugins="pretix.plugins.banktransfer")
            start = (now() + timedelta(days=60)).replace(hour=9, minute=0, second=0, microsecond=0)
            conf = Event.objects.create(organizer=org, name="PyConf 2026", slug="conf2026", currency="EUR",
                                        date_from=start, date_to=start + timedelta(hours=9), live=True,
                                        plugins="pretix.plugins.banktransfer,pretix.plugins.ticketoutputpdf")
            conf.settings.set("payment_banktransfer__enabled", True)
            conf.settings.set("payment_banktransfer_bank_details_type", "other")
            conf.settings.set("payment_banktransfer_bank_details",
                              LazyI18nString({"en": "Demo Events, IBAN DE00 0000 0000 0000 0000 00"}))
            conf.settings.set("attendee_names_asked", True)
            conf.settings.set("attendee_names_required", True)
            conf.settings.set("attendee_emails_asked", False)
            conf.settings.set("invoice_address_asked", False)
            tickets = ItemCategory.objects.create(event=conf, name="Tickets", position=0)
            merch = ItemCategory.objects.create(event=conf, name="Merchandise", position=1, is_addon=True)
            regular = Item.objects.create(event=conf, category=tickets, name="Regular ticket",
                                          default_price=Decimal("120.00"), admission=True, personalized=True,
                                          position=0)
            student = Item.objects.create(event=conf, category=tickets, name="Student ticket",
                                          default_price=Decimal("40.00"), admission=True, personalized=True,
                                          position=1)
            shirt = Item.objects.create(event=conf, category=merch, name="T-shirt", default_price=Decimal("15.00"),
                                        admission=False, position=0)
            for base in (regular, student):
                ItemAddOn.objects.create(base_item=base, addon_category=merch, min_count=0, max_count=1)
            quota = Quota.objects.create(event=conf, name="Conference seats", size=100)
            quota.items.add(regular, student)
            Quota.objects.create(event=conf, name="T-shirts", size=50).items.add(shirt)
            company = Question.objects.create(event=conf, question="Company", type=Question.TYPE_STRING,
                                              required=False, position=0)
            diet = Question.objects.create(event=conf, question="Dietary needs", type=Question.TYPE_STRING,
                                           required=False, position=1)
            for question in (company, diet):
                question.items.add(regular, student)
            Voucher.objects.create(event=conf, code="EARLYBIRD", price_mode="percent", value=Decimal("25.00"),
                                   max_usages=10, item=regular)

            meet = Event.objects.create(organizer=org, name="Python Meetup", slug="meetup", currency="EUR",
                                        date_from=start - timedelta(days=30), live=True, plugins="")
            meet.settings.set("attendee_names_asked", True)
            meet.settings.set("attendee_names_required", True)
            meet.settings.set("invoice_address_asked", False)
            free = Item.objects.create(event=meet, name="Free admission", default_price=Decimal("0.00"),
                                       admission=True, personalized=True)
            Quota.objects.create(event=meet, name="Room", size=40).items.add(free)
        self.stdout.write("seeded organizer demo: events conf2026, meetup")
