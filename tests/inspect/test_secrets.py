"""Secret user fields never reach the Inspect log: the task message shows `{secret:PATH}`, the tools fill it in."""

from __future__ import annotations

from clawrec.agents.base import TaskInfo
from clawrec.inspect.secrets import filled, masked


def test_the_message_shows_placeholders_and_the_tools_fill_them():
    user = {"email": "a@example.com", "account": {"password": "hunter2-Secret"}}
    task = TaskInfo(id="t", instruction="Log in.", start_url="http://127.0.0.1/", user=user)
    shown = masked(task, ("account.password", "absent"))
    assert shown.user == {"email": "a@example.com", "account": {"password": "{secret:account.password}"}}
    assert "hunter2" not in repr(shown) and "{secret:NAME}" in shown.instruction
    assert task.user["account"]["password"] == "hunter2-Secret"  # the run's own task is unchanged
    args = filled({"ref": "e3", "text": "{secret:account.password}"}, user, ("account.password",))
    assert args == {"ref": "e3", "text": "hunter2-Secret"}
    # only the spec's secret fields are filled: a placeholder naming another field stays as typed
    assert filled({"text": "{secret:email}"}, user, ("account.password",)) == {"text": "{secret:email}"}
    assert masked(task, ()) is task
