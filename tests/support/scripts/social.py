"""social-status-update on Murmur: comment on Maria's post (WebSocket), then post a Friends-only status."""

from __future__ import annotations

from tests.support.model_script import Script
from tests.support.scripts.plan import click, navigate, plan, select, type_

COMMENT = "Congratulations, Maria!"
STATUS = "Ran my first trail half marathon today: 2:04 at Barton Creek!"


def script() -> Script:
    return plan(
        navigate(),
        type_("textbox", "Write a comment on Maria Chen", COMMENT, submit=True),
        type_("textbox", "What's on your mind", STATUS),
        select("combobox", "Audience", "friends"),
        click("button", "Post", exact=True),
        final="I commented on Maria's post and published the status to Friends.",
    )
