"""A person's retried submissions in a hold-mode reference: the same submission blocked again, or another one.

Why: people press the submit button again after blocking it (the page said nothing happened). Each press is held and
blocked, so the run holds several blocked attempts. When they carry the same payload (tokens, nonces and timestamps
aside: taskspec.volatile) they are ONE submission repeated: the last attempt is the terminal one (the order of
taskspec.terminal), and check-spec accepts the earlier ones as repeats, named in its report. When the person blocked
two DIFFERENT submissions, nothing here can tell which one the task meant: `clawrec annotate` stops and names the
`--pick` that says it. Pure data.
"""

from __future__ import annotations

from typing import Any

from rundir import records as R
from taskspec.distinguish import Sent, same_submission
from taskspec.terminal import HELD, person_blocked


def person_blocked_places(catches: list[dict[str, Any]], http: list[tuple[int, dict[str, Any]]]) -> set[str]:
    """"http.jsonl:N" / "interceptions.jsonl:N" of every request a person blocked in hold mode (a blocked WebSocket
    frame is only in interceptions.jsonl; an HTTP request is found in http.jsonl by its network id)."""
    ids = {c.get("network_id") for c in catches if person_blocked(c) and str(c.get("method")).upper() != "WEBSOCKET"}
    out = {f"{R.INTERCEPTIONS}:{n}" for n, c in enumerate(catches, 1)
           if person_blocked(c) and str(c.get("method")).upper() == "WEBSOCKET"}
    out |= {f"{R.HTTP}:{n}" for n, rec in http if rec.get("intercepted") == HELD and rec.get("id") is not None
            and rec.get("id") in ids}
    return out


def repeats(terminal: Sent, others: list[tuple[str, Sent]], blocked: set[str]) -> list[str]:
    """Where the person blocked the terminal submission before (each `others` item: where, request)."""
    return [where for where, s in others if where in blocked and same_submission(s, terminal)]


def split_blocked(found: list[Any]) -> tuple[list[Any], list[Any]]:
    """For annotate's ranked candidates (the last person block first): (earlier attempts of the same submission,
    other submissions the person blocked too)."""
    top = found[0] if found else None
    if top is None or top.held is None:
        return [], []
    blocked = [c for c in found[1:] if c.held is not None]
    same = [c for c in blocked if same_submission(c.sent(), top.sent())]
    return same, [c for c in blocked if c not in same]


def distinct(found: list[Any]) -> int:
    """How many different submissions `found` (candidates) hold, a repeated one counted once."""
    groups: list[Any] = []
    for c in found:
        if not any(same_submission(c.sent(), g.sent()) for g in groups):
            groups.append(c)
    return len(groups)
