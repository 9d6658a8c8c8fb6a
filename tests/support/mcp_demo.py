"""The 5 demo tasks for the Playwright MCP agents (claude-code, codex): `demo_script(task_id, wrong=...)`, the
interface every agent's demo module gives (tests/support/demo_bench.py plays them all through `clawrec bench`).

Why these scripts: the shared demo plans (tests/support/scripts) through `for_mcp`, plus social-share-post, whose
share dialog is a `window.open` popup: Playwright MCP keeps working in the tab it was on, so the plan selects the
popup's tab (`browser_tabs`, found by its URL in the "Open tabs" list) before filling it in. A wrong script is the
right one with one submitted value changed (a value the payload judge checks, and one the page still accepts, so
the terminal request is sent and caught).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable

from tests.support.mcp_plans import for_mcp
from tests.support.model_script import History, Script, ToolCall, Turn, browser, find_ref
from tests.support.scripts import jobs, shop, social, travel
from tests.support.scripts.plan import Action, click, latest_snapshot, navigate, plan, select, type_

SHARE_MESSAGE = "Who's in for Saturday?"
# task → (the right value as typed or selected, the wrong one put in its place)
WRONG = {"travel-flight-oneway": ("Doe", "Dough"),              # passengers.0.last_name
         "jobs-apply-analyst": ("125000", "99000"),             # salary_expectation
         "shop-trail-order": ("78704", "78701"),                # shippingAddress.postalCode
         "social-status-update": ("friends", "public"),         # audience
         "social-share-post": (SHARE_MESSAGE, "Who's in for Sunday?")}  # message


def click_within(role: str, name: str, target_role: str, target_name: str) -> Action:
    """A click on `target_role "target_name"` inside the snapshot's `role "name"` subtree (e.g. one post's button)."""

    def act(h: History) -> Turn | None:
        lines = latest_snapshot(h).splitlines()
        for i, line in enumerate(lines):
            if find_ref(line, role, name) or re.search(rf'- {re.escape(role)} "{re.escape(name)}"', line):
                depth = len(line) - len(line.lstrip())
                block = []
                for inner in lines[i + 1:]:
                    if len(inner) - len(inner.lstrip()) <= depth:
                        break
                    block.append(inner)
                ref = find_ref("\n".join(block), target_role, target_name)
                return browser(action="act", kind="click", ref=ref) if ref else None
        return None

    return act


def select_tab(url_part: str) -> Action:
    """Make the tab whose URL holds `url_part` the current one (its index read from the latest "Open tabs" list)."""

    def act(h: History) -> Turn | None:
        m = re.search(rf"^- (\d+):[^\n]*\]\([^)\n]*{re.escape(url_part)}", latest_snapshot(h), re.M)
        return browser(action="tabs", op="select", index=int(m.group(1))) if m else None

    return act


def share_script() -> Script:
    return plan(
        navigate(),
        click_within("article", "Post by Jordan Lee", "button", "Share"),
        select_tab("/share?post=p102"),
        select("combobox", "Share to", "group:trail-runners-atx"),
        type_("textbox", "Say something", SHARE_MESSAGE),
        click("button", "Share now"),
        final="I shared Jordan Lee's Barton Creek post to Trail Runners ATX with the message.",
    )


PLANS: dict[str, Callable[[], Script]] = {
    "travel-flight-oneway": travel.script, "jobs-apply-analyst": jobs.script, "shop-trail-order": shop.script,
    "social-status-update": social.script, "social-share-post": share_script}


def mistaken(script: Script, right: str, wrong: str) -> Script:
    """`script` with the typed text or selected value `right` replaced by `wrong` in every call it makes."""

    def swap(call: ToolCall) -> ToolCall:
        a: dict[str, Any] = dict(call.arguments)
        if a.get("text") == right:
            a["text"] = wrong
        if isinstance(a.get("values"), list):
            a["values"] = [wrong if v == right else v for v in a["values"]]
        return ToolCall(call.name, a, call.id)

    def wrapped(request: dict[str, Any], h: History) -> Turn:
        turn = script(request, h)
        return Turn(turn.text, [swap(c) for c in turn.tool_calls], turn.error) if turn.tool_calls else turn

    return wrapped


def demo_script(task_id: str, *, wrong: bool = False, run_dir: Path | None = None) -> Script:
    """The Playwright MCP script of a demo task (run_dir unused: the script reads only the conversation)."""
    if task_id not in PLANS:
        raise KeyError(f"no MCP demo script for {task_id!r} (have: {', '.join(PLANS)})")
    script = PLANS[task_id]()
    return for_mcp(mistaken(script, *WRONG[task_id]) if wrong else script)
