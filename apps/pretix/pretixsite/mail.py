"""Outgoing mail as files: one RFC 5322 message per .eml file in EMAIL_FILE_PATH (a task's `mail` checks read them)."""

import os
import time
import uuid
from pathlib import Path

from django.conf import settings
from django.core.mail.backends.base import BaseEmailBackend


class EmlFileBackend(BaseEmailBackend):
    def send_messages(self, email_messages):
        folder = Path(settings.EMAIL_FILE_PATH)
        folder.mkdir(parents=True, exist_ok=True)
        for message in email_messages:
            name = f"{time.time_ns()}-{uuid.uuid4().hex[:8]}.eml"
            tmp = folder / (name + ".tmp")
            tmp.write_bytes(message.message().as_bytes())
            os.replace(tmp, folder / name)
        return len(email_messages)
