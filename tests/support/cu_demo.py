"""The 5 demo tasks as scripted models for `computer-use` (issue 25's shared interface: `demo_script`).

Why through the shared plans: tests/support/scripts hold one planner per task in OpenClaw's `browser` vocabulary;
tests/support/screen_bridge.py plays such a plan to the computer-use agent (a test-side ARIA oracle on the run's browser
says where its element is on the screen), so every agent is judged on the same steps. social-share-post has no
shared plan yet: `share_plan` is it (the Share button of Jordan Lee's post opens a popup window; the oracle follows
the newest page). A wrong script swaps one value the payload judge checks, so the run is caught and judged FAIL.

    script = demo_script("jobs-apply-analyst", run_dir=run_dir)   # the run's folder, before the run starts
    ... run the agent against ModelServer(script) ...
    script.close()                                                # the oracle's own CDP connection
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path
from typing import Any

from tests.support.screen_bridge import PlanOracle, screen_bridge
from tests.support.model_script import History, Script, Turn
from tests.support.model_script import browser as call
from tests.support.scripts.plan import Action, click, latest_snapshot, navigate, plan, select, type_

# task id → (module in tests/support/scripts or None, a word of its instruction the dispatcher recognises it by)
TASKS = {"travel-flight-oneway": ("travel", "one-way economy flight"),
         "jobs-apply-analyst": ("jobs", "Hireloop"),
         "shop-trail-order": ("shop", "Northwind Outfitters"),
         "social-status-update": ("social", "visible to Friends only"),
         "social-share-post": (None, "Trail Runners ATX")}
SHARE_MESSAGE = "Who's in for Saturday?"
# task id → (the right value as the plan types or selects it, the wrong script's value): each is a judged field
WRONG = {"travel-flight-oneway": ("Alex", "Alec"),
         "jobs-apply-analyst": ("+1 512 555 0142", "+1 512 555 0143"),
         "shop-trail-order": ("alex.doe@example.com", "alex.doe@example.org"),
         "social-status-update": ("friends", "public"),
         "social-share-post": (SHARE_MESSAGE, "Who's in for Sunday?")}


def share_of(author: str) -> Action:
    """The Share button inside the article `Post by <author>` (every post has one: the first would be Maria's)."""
    def act(h: History) -> Turn | None:
        lines = latest_snapshot(h).splitlines()
        for i, line in enumerate(lines):
            if f'article "Post by {author}"' not in line:
                continue
            depth = len(line) - len(line.lstrip())
            for inner in lines[i + 1:]:
                if len(inner) - len(inner.lstrip()) <= depth:
                    break
                m = re.search(r'button "Share"[^\n]*\[ref=([\w-]+)\]', inner)
                if m:
                    return call(action="act", kind="click", ref=m.group(1))
        return None
    return act


def share_plan() -> Script:
    return plan(
        navigate(),
        share_of("Jordan Lee"),
        select("combobox", "Share to", "group:trail-runners-atx"),
        type_("textbox", "Say something about this", SHARE_MESSAGE),
        click("button", "Share now"),
        final="I shared Jordan Lee's Barton Creek post to Trail Runners ATX with the message.",
    )


def swapped(script: Script, right: str, wrong: str) -> Script:
    """`script`, but typing or selecting `wrong` wherever it would enter `right`."""
    def run(request: dict[str, Any], h: History) -> Turn:
        turn = script(request, h)
        for c in turn.tool_calls:
            if c.arguments.get("text") == right:
                c.arguments = {**c.arguments, "text": wrong}
            if right in (c.arguments.get("values") or []):
                c.arguments = {**c.arguments, "values": [wrong if v == right else v for v in c.arguments["values"]]}
        return turn
    return run


class DemoScript:
    """A Script (callable) for one run, with the oracle it owns: close() it after the run."""

    def __init__(self, task_id: str, wrong: bool, run_dir: Path) -> None:
        self.task_id, self.wrong = task_id, wrong
        self.oracle = PlanOracle(run_dir)
        self._script = self._bridge()

    def _bridge(self) -> Script:
        module = TASKS[self.task_id][0]
        planned = importlib.import_module(f"tests.support.scripts.{module}").script() if module else share_plan()
        if self.wrong:
            planned = swapped(planned, *WRONG[self.task_id])
        return screen_bridge(self.oracle, planned)

    def __call__(self, request: dict[str, Any], h: History) -> Turn:
        if h.step == 0:  # a new conversation (the bench retries a run that crashed): the plan starts over
            self._script = self._bridge()
        return self._script(request, h)

    def close(self) -> None:
        self.oracle.close()


def demo_script(task_id: str, *, wrong: bool = False, run_dir: Path | None = None) -> DemoScript:
    """The computer-use script of a demo task; `run_dir` (the run's folder) is required: the oracle reads the
    running manifest there to find the run's browser and display."""
    if task_id not in TASKS:
        raise KeyError(f"no computer-use demo script for {task_id!r}; known: {', '.join(TASKS)}")
    if run_dir is None:
        raise ValueError("computer-use demo scripts need the run's folder (run_dir)")
    return DemoScript(task_id, wrong, Path(run_dir))


def task_of(request: dict[str, Any]) -> str:
    """Which demo task a request's conversation is about (by a word of its instruction)."""
    text = json.dumps(request.get("messages") or "")
    found = [t for t, (_, word) in TASKS.items() if word.lower() in text.lower()]
    if len(found) != 1:
        raise AssertionError(f"demo task not recognised ({found}) in: {text[:300]}")
    return found[0]


def dispatch(scripts: dict[tuple[str, str], Script]) -> Script:
    """One model server for many runs: the script of (request's model, the task its conversation is about)."""
    def script(request: dict[str, Any], h: History) -> Turn:
        return scripts[str(request.get("model")), task_of(request)](request, h)
    return script



