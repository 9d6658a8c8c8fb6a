"""`manage.py seed_site`: the snapshot's small deterministic journal (run once, right after migrate).

Home (/) with a blog index (/blog/) of three live posts, a contact form page (/contact/), one announcement snippet
and one editor (eddie / clawrec-pass, a spec secret; a Wagtail superuser). Idempotent: a second run changes nothing.
"""

import datetime

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from wagtail.models import Page, Site

from site_cms.models import Announcement, BlogIndexPage, BlogPage, FormField, FormPage, HomePage

POSTS = [  # (slug, title, date, body)
    ("spring-garden", "Spring in the garden", datetime.date(2026, 3, 21), "<p>The tulips came up early this year.</p>"),
    ("city-cycling", "Cycling through the city", datetime.date(2026, 5, 2), "<p>Ten routes we ride every week.</p>"),
    ("winter-soup", "A winter soup", datetime.date(2026, 11, 8), "<p>Leeks, potatoes and patience.</p>"),
]


def _publish(page: Page) -> None:
    page.save_revision().publish()


class Command(BaseCommand):
    help = "Seed the journal's pages, one snippet and one editor (deterministic, idempotent)."

    def handle(self, *args, **options):
        user, made = get_user_model().objects.get_or_create(username="eddie", defaults={
            "email": "eddie@clawrec.test", "first_name": "Eddie", "last_name": "Editor",
            "is_staff": True, "is_superuser": True})
        if made:
            user.set_password("clawrec-pass")
            user.save()
        if HomePage.objects.exists():
            return
        root = Page.get_first_root_node()
        Page.objects.filter(depth=2).delete()  # Wagtail's "Welcome" page
        home = root.add_child(instance=HomePage(title="Welcome to the Clawrec Journal", slug="home",
                                                body="<p>Notes on gardens, bikes and soup.</p>"))
        _publish(home)
        Site.objects.all().delete()
        Site.objects.create(hostname="127.0.0.1", port=80, root_page=home, is_default_site=True,
                            site_name="Clawrec Journal")
        blog = home.add_child(instance=BlogIndexPage(title="Blog", slug="blog", intro="<p>All our posts.</p>"))
        _publish(blog)
        for slug, title, date, body in POSTS:
            _publish(blog.add_child(instance=BlogPage(title=title, slug=slug, date=date, body=body)))
        form = FormPage(title="Contact us", slug="contact", intro="<p>Write to the editors.</p>",
                        thank_you_text="<p>Thank you, we read every message.</p>")
        home.add_child(instance=form)
        for i, (label, kind) in enumerate([("Your name", "singleline"), ("Email", "email"),
                                           ("Message", "multiline")]):
            FormField.objects.create(page=form, sort_order=i, label=label, field_type=kind, required=True)
        _publish(form)
        Announcement.objects.create(title="Opening hours", text="The office is open Monday to Friday, 9 to 5.")
