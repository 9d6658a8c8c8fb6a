"""The desk's own app: only its seed command (management/commands/seed_desk.py)."""

from django.apps import AppConfig


class DeskConfig(AppConfig):
    name = "desk"
