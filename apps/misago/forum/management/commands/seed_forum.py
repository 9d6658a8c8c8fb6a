"""Seed the forum snapshot: users alex (the acting user), jordan and priya; the default category renamed General;
three threads with replies, one with an open poll. Run once by `clawrec apps install` (apps/misago/setup.sh).

Why Misago's own test helpers (misago.threads.test, misago.users.test): they build threads, posts and polls exactly
as Misago's test suite does (synchronized counters, checksums), without the avatar downloads of a real sign-up.
"""

from datetime import timedelta

from django.core.management.base import BaseCommand
from django.utils import timezone
from misago.categories.models import Category
from misago.threads.models import Poll
from misago.threads.test import post_thread, reply_thread
from misago.users.test import create_test_user

USERS = {  # username: (e-mail, password); alex's password is the specs' secret MISAGO_PASSWORD
    "alex": ("alex@example.test", "forum-alex-2026"),
    "jordan": ("jordan@example.test", "forum-jordan-2026"),
    "priya": ("priya@example.test", "forum-priya-2026"),
}
THREADS = [  # (starter, title, first post, [(replier, reply)])
    ("jordan", "Welcome to the community board", "Introduce yourself here: who you are and what you build.",
     [("priya", "Hi all, Priya here. I maintain the hiking club's website.")]),
    ("priya", "Best trails near the lake?", "Planning a weekend hike. Which trail around the lake is worth it?",
     [("jordan", "The north loop: 12 km, great views from the ridge."),
      ("alex", "Agreed on the north loop, but start early: the car park fills by nine.")]),
    ("jordan", "Next meetup: pick a date", "Vote in the poll below; the date with most votes wins.", []),
]
POLL = ("When should the next meetup be?", ["Saturday 12 December", "Sunday 13 December", "Saturday 19 December"])


class Command(BaseCommand):
    help = "Seed users, a category, threads and a poll for clawrec's Misago snapshot."

    def handle(self, *args, **options) -> None:
        users = {name: create_test_user(name, email, password) for name, (email, password) in USERS.items()}
        category = Category.objects.all_categories().order_by("lft").first()
        category.name, category.slug = "General", "general"
        category.save()
        start = timezone.now() - timedelta(days=3)
        for n, (starter, title, text, replies) in enumerate(THREADS):
            thread = post_thread(category, title=title, poster=users[starter], started_on=start + timedelta(hours=n))
            first = thread.first_post
            first.original, first.parsed = text, f"<p>{text}</p>"
            first.save()
            for m, (replier, reply) in enumerate(replies):
                post = reply_thread(thread, poster=users[replier], message=reply,
                                    posted_on=start + timedelta(hours=n, minutes=10 * (m + 1)))
                post.parsed = f"<p>{reply}</p>"
                post.save()
        thread.has_poll = True
        thread.save()
        question, labels = POLL
        Poll.objects.create(category=category, thread=thread, poster=users["jordan"], poster_name="jordan",
                            poster_slug="jordan", question=question, length=0, allowed_choices=1,
                            choices=[{"hash": f"choice{i}hash"[:12].ljust(12, "x"), "label": label, "votes": 0}
                                     for i, label in enumerate(labels)])
        self.stdout.write(f"seeded {len(users)} users, {len(THREADS)} threads, 1 poll in {category.name}")
