"""Outgoing mail as .eml files: Django's file backend, one message per file (a task's `mail` checks read them)."""

import uuid

from django.core.mail.backends.filebased import EmailBackend


class EmlBackend(EmailBackend):
    """Django's file backend writes every message of a connection into one .log; a check wants one .eml each."""

    def write_message(self, message):
        self.stream.write(message.message().as_bytes())

    def _get_filename(self):
        return f"{self.file_path}/{uuid.uuid4().hex}.eml"

    def send_messages(self, email_messages):
        sent = 0
        for message in email_messages:
            self._fname = None
            sent += super().send_messages([message])
            self.close()
        return sent
