"""The 5 demo tasks (specs/demo) as browser-use scripts: each step read off the element list browser-use sends
(tests/support/browser_use_plan.py), the same steps as the shared scripts (tests/support/scripts) by element names.

`demo_script(task_id)` completes the task (payload judge PASS); `wrong=True` submits one wrong value the payload
judge must FAIL (the terminal request is still caught). `dispatching(...)` serves several runs from one model
server: the task by its instruction in the request, right or wrong by the request's model name.
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any, Callable

from tests.support.browser_use_plan import (Action, bu_plan, click, click_nth, prompt_value, select, state_text,
                                            switch_to, type_in, upload, when)
from tests.support.model_script import History, Script, Turn

COMMENT = "Congratulations, Maria!"
STATUS = "Ran my first trail half marathon today: 2:04 at Barton Creek!"
SHARE_MESSAGE = "Who's in for Saturday?"
# the words of each task's instruction that tell it apart (a request names its task only there)
INSTRUCTION = {"travel-flight-oneway": "one-way economy flight", "jobs-apply-analyst": "Hireloop",
               "shop-trail-order": "Northwind Outfitters", "social-status-update": "publish this status update",
               "social-share-post": "to the group"}


def _wrong(right: Any, wrong: Any, is_wrong: bool) -> Any:
    return wrong if is_wrong else right


def file_path(suffix: str) -> Callable[[str], str]:
    """A file the user gave (a `- /path` line of the user request)."""
    def get(state: str) -> str:
        m = re.search(rf"^- (/\S*{re.escape(suffix)})\s*$", state.split("</user_request>", 1)[0], re.M)
        assert m, f"no {suffix} file in the user request"
        return m[1]
    return get


def travel(wrong: bool) -> list[Action]:
    return [click("Accept all cookies", "button"), click("One-way"),
            type_in("From", "New York"), click("(JFK)"), type_in("To", "Los Angeles"), click("(LAX)"),
            type_in("Depart", "2026-12-31"), select("Cabin class", "Economy"),
            click("Search flights", "button"), click("Nonstop only"), click("Cheapest"),
            click("Select", "button"),
            type_in("First name", prompt_value("first_name")), type_in("Last name", prompt_value("last_name")),
            type_in("Date of birth", _wrong(prompt_value("date_of_birth"), "1990-04-21", wrong)),
            type_in("E-mail", prompt_value("email"), exact=True),
            type_in("Contact e-mail", prompt_value("email")), type_in("Mobile phone", prompt_value("phone")),
            click("Continue to review", "button"), click("Confirm and book", "button")]


def jobs(wrong: bool) -> list[Action]:
    return [type_in("What", "Senior Data Analyst"), type_in("Where", "Austin"), click("Search jobs", "button"),
            click("Senior Data Analyst", "a"), click("Apply now"),
            type_in("Email address", prompt_value("email")), type_in("Password", prompt_value("password")),
            click("Sign in", "button"),
            type_in("Full name", prompt_value("full_name")), type_in("Email", prompt_value("email"), exact=True),
            type_in("Phone", prompt_value("phone")), type_in("City", prompt_value("city")),
            click("Continue", "button"),
            select("Years of relevant experience", "5-7"), click("Yes", exact=True),
            type_in("Earliest start date", prompt_value("earliest_start_date")),
            type_in("Salary expectation", _wrong(prompt_value("salary_expectation_usd"), "150000", wrong)),
            click("Continue", "button"),
            upload("Résumé", file_path("resume.pdf")), type_in("Cover letter", prompt_value("cover_letter")),
            click("I confirm", "input"), click("Submit application", "button")]


def shop(wrong: bool) -> list[Action]:
    """Size M is the second of S, M, L: browser-use's element list drops one-character texts."""
    return [click("Ridgeline Trail Runner 2", "a"), click("43", exact=True), click("Add to cart", "button"),
            when("Added", click("Northwind Outfitters", "a")), click("Merino Hiking Socks", "a"),
            click_nth("Size", "label", 1), click("Add to cart", "button"), when("Added", click("Cart", "a")),
            type_in("Discount code", "WELCOME10"), click("Apply", "button", exact=True),
            when("WELCOME10 applied", click("Checkout", "a")),
            type_in("Email", prompt_value("email"), exact=True), type_in("Full name", prompt_value("name")),
            type_in("Street address", prompt_value("address.street")),
            type_in("City", prompt_value("address.city"), exact=True),
            type_in("State", prompt_value("address.state"), exact=True),
            type_in("ZIP code", _wrong(prompt_value("address.zip"), "78705", wrong)), select("Country", "US"),
            type_in("Card number", prompt_value("card.number")), type_in("Expiration", prompt_value("card.exp")),
            type_in("Security code", prompt_value("card.cvc")), click("Place order", "button")]


def social_status(wrong: bool) -> list[Action]:
    return [type_in("Write a comment on Maria Chen", COMMENT, submit=True), type_in("What's on your mind", STATUS),
            select("Audience", _wrong("Friends", "Only me", wrong)), click("Post", "button", exact=True)]


def social_share(wrong: bool) -> list[Action]:
    """The share dialog is a popup (window.open): browser-use sees a second tab and switches to it."""
    return [click("Share", "button", after="Jordan Lee"), switch_to("/share"),
            select("Share to", "Group: Trail Runners ATX"),
            type_in("Say something", _wrong(SHARE_MESSAGE, "Who's in for Sunday?", wrong)),
            click("Share now", "button")]


PLANS: dict[str, Callable[[bool], list[Action]]] = {
    "travel-flight-oneway": travel, "jobs-apply-analyst": jobs, "shop-trail-order": shop,
    "social-status-update": social_status, "social-share-post": social_share}


def demo_script(task_id: str, *, wrong: bool = False, run_dir: Path | None = None) -> Script:
    """browser-use's script for one demo task (run_dir is not needed: everything is read off the requests)."""
    if task_id not in PLANS:
        raise KeyError(f"no browser-use demo script for {task_id}")
    return bu_plan(*PLANS[task_id](wrong), final=f"Done: {task_id}{' (wrong value)' if wrong else ''}.")


def dispatching(wrong_models: set[str] = frozenset()) -> Script:
    """One script for many runs: a plan per (model, task), fresh at each run's first step (a bench retry starts
    over), the task told by its instruction. Two concurrent runs of one task need different model names."""
    plans: dict[tuple[str, str], Script] = {}
    lock = threading.Lock()

    def script(request: dict[str, Any], h: History) -> Turn:
        text = json.dumps(request.get("messages") or "")
        task = next((t for t, words in INSTRUCTION.items() if words.lower() in text.lower()), None)
        if task is None:
            raise AssertionError(f"no demo task recognised in: {text[:300]}")
        model = str(request.get("model"))
        with lock:
            if (model, task) not in plans or re.search(r"<step_info>\s*Step1\b", state_text(request)):
                plans[model, task] = demo_script(task, wrong=model in wrong_models)  # a run's (or retry's) start
            plan = plans[model, task]
        return plan(request, h)

    return script
