"""The site's own app: its page types, one snippet and the seed command (management/commands/seed_site.py)."""

from django.apps import AppConfig


class SiteCmsConfig(AppConfig):
    name = "site_cms"
    default_auto_field = "django.db.models.AutoField"
