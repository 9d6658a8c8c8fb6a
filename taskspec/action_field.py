"""The field of a terminal request whose value names the action it performs, pinned in the annotated rule's `equals`.

Why: one URL often receives several steps of one flow. A checkout posts `action=payment_details` and later
`action=place_order` to the same `/checkout/`; a Remix route gets `_action=delete` and `_action=update`; a GraphQL
endpoint gets every operation. A rule on the URL alone, written from a reference run that happened to send only the
final step there, blocks the earlier step in another configuration of the same application (issue 35 item 6). The
field that names the action is a constant of the submission, never a value the user chose, so pinning it costs no
agent a catch. Which fields name the action: `action`, `_action`, `operationName` (GraphQL's is pinned already,
taskspec/annotate.py), and the submit button the person pressed, when it has a name (`<button name="place_order"
value="1">`, Rails' `commit=Place order`): the extension's `submit` record carries it as `submitter`. A framework's
generic submit buttons (`_save`, `_continue`: taskspec/plumbing.py) are NOT pinned: "Save" and "Save and continue"
are the same submission, and pinning one would let the other reach the site. Pure data.
"""

from __future__ import annotations

from typing import Any, Iterable

from taskspec.plumbing import plumbing_reason
from taskspec.volatile import reason as token_reason

ACTION_NAMES = ("action", "_action", "operationName")
MAX_VALUE = 100  # longer values are text, not the name of an action


def submitter(actions: Iterable[dict[str, Any]], t: float) -> dict[str, Any] | None:
    """The named submit button of the last form submission at or before `t` (run clock), or None."""
    last = None
    for a in actions:
        if a.get("type") == "submit" and float(a.get("t") or 0) <= t:
            last = a
    found = last.get("submitter") if last is not None else None
    return found if isinstance(found, dict) and isinstance(found.get("name"), str) and found["name"] else None


def _constant(path: str, value: Any) -> bool:
    return (isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip() != ""
            and len(str(value)) <= MAX_VALUE and token_reason(path, value) is None)


def action_equals(pairs: Iterable[tuple[str, Any]], button: dict[str, Any] | None = None) -> dict[str, Any]:
    """{path: value} to pin: the payload's top-level fields that name the action, and the pressed submit button's
    field when the payload carries it with the button's value."""
    values = dict(pairs)
    out = {p: v for p, v in values.items() if p in ACTION_NAMES and _constant(p, v)}
    if button is not None:
        name = button["name"]
        if name in values and plumbing_reason(name) is None and _constant(name, values[name]) \
                and (button.get("value") is None or str(button.get("value")) == str(values[name])):
            out[name] = values[name]
    return out
