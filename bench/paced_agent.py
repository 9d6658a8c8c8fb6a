"""An LLM-paced scripted agent for `make bench BENCH=scale` and `make soak` (a `command` agent).

Why: a real agent is paced by its model (seconds of thinking per step while the browser idles), so a machine's
throughput is how many runs it holds at once, not page speed. This agent completes a demo task with the sites' own
drivers (sites/drivers.py) and waits a think time drawn from CLAWREC_PACE_THINK (default `1-6` seconds) before each
real action (a click, typing, a choice, an upload, a navigation); it first browses the start page (scrolls, each a
real action with its own think time) so that a run has CLAWREC_PACE_ACTIONS actions (default `15-30`, drawn per run).
Draws are seeded by the task id and $CLAWREC_BENCH_TRIAL: a level of the scale bench replays the same pacing.
It prints one line per action (`paced: N kind`) and the total (`paced: done N actions`).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
from pathlib import Path
from typing import Any

ACTIONS = ("click", "dblclick", "fill", "type", "press", "press_sequentially", "check", "uncheck", "select_option",
           "set_input_files")
DRIVER_ACTIONS = {"travel": 24, "jobs": 23, "shop": 24, "social": 6, "social-share": 5}  # counted with this agent


def _range(name: str, default: str) -> tuple[float, float]:
    text = os.environ.get(name, default)
    lo, _, hi = text.partition("-")
    try:
        a, b = float(lo), float(hi or lo)
    except ValueError:
        sys.exit(f"paced agent: {name}={text!r}: want LO-HI (seconds or counts)")
    return min(a, b), max(a, b)


class Pace:
    """Think before each action; count them."""

    def __init__(self, rng: random.Random, think: tuple[float, float]) -> None:
        self.rng, self.think, self.count = rng, think, 0

    async def before(self, kind: str) -> None:
        await asyncio.sleep(self.rng.uniform(*self.think))
        self.count += 1
        print(f"paced: {self.count} {kind}", flush=True)


def _patch(pace: Pace) -> None:
    """Every Locator action and Page.goto waits its think time first (the drivers stay unchanged)."""
    from playwright.async_api import Locator, Page

    def paced(cls: type, name: str) -> None:
        original = getattr(cls, name)

        async def method(self: Any, *args: Any, **kwargs: Any) -> Any:
            await pace.before(name)
            return await original(self, *args, **kwargs)

        setattr(cls, name, method)

    for name in ACTIONS:
        paced(Locator, name)
    paced(Page, "goto")


async def main() -> None:
    from playwright.async_api import async_playwright

    from sites.drivers import SPEC_TASKS, drive

    task = json.loads(Path(os.environ["CLAWREC_TASK"]).read_text())
    site = SPEC_TASKS.get(task["id"])
    if site is None:
        sys.exit(f"paced agent: no driver for task {task['id']!r} (have: {', '.join(SPEC_TASKS)})")
    rng = random.Random(f"{task['id']}:{os.environ.get('CLAWREC_BENCH_TRIAL', '1')}")
    pace = Pace(rng, _range("CLAWREC_PACE_THINK", "1-6"))
    lo, hi = _range("CLAWREC_PACE_ACTIONS", "15-30")
    target = rng.randint(int(lo), int(hi))
    urls = json.loads(os.environ["CLAWREC_SITES"])
    files = {Path(f).name: f for f in task["files"]}
    async with async_playwright() as pw:
        browser = await pw.chromium.connect_over_cdp(os.environ["CLAWREC_CDP_URL"])
        context = browser.contexts[0]
        page = context.pages[0] if context.pages else await context.new_page()
        for i in range(max(0, target - DRIVER_ACTIONS.get(site, 10))):  # browsing the start page first
            await pace.before("scroll")
            await page.mouse.move(400 + rng.randint(-200, 200), 300 + rng.randint(-100, 100))
            await page.mouse.wheel(0, 300 if i % 2 == 0 else -300)
        _patch(pace)
        await drive(site, page, urls, task["user"], files)
    print(f"paced: done {pace.count} actions", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
