"""The announcement snippets on every page (a template context processor: the snippet task's visible effect)."""

from django.http import HttpRequest


def announcements(request: HttpRequest) -> dict:
    from site_cms.models import Announcement
    return {"announcements": Announcement.objects.all()}
