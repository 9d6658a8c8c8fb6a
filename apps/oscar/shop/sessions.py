"""Django's database sessions, stored as readable JSON: a task's SQL checks read the pending checkout with SQLite's
json_extract (Oscar keeps the guest e-mail and the shipping address in the session until the order is placed)."""

import json

from django.contrib.sessions.backends.db import SessionStore as DbSessionStore


class SessionStore(DbSessionStore):
    def encode(self, session_dict):
        return json.dumps(session_dict, sort_keys=True, default=str)

    def decode(self, session_data):
        try:
            return json.loads(session_data)
        except ValueError:
            return {}
