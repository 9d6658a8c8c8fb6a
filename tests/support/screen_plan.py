"""A scripted "computer use" model: page actions turned into screen clicks and keystrokes at true screen coordinates.

Why an oracle: the computer-use agent sends the model only screenshots, and this machine has no OCR. So the script's
eyes are a test-side CDP look at the run's browser (the running manifest names its profile, whose DevToolsActivePort
gives the port): the ARIA snapshot finds an element, its box + the viewport's offset on the screen give where to click.
The adapter under test never sees this connection; it only gets computer-tool calls, as from a real model.

    oracle = ScreenOracle(run_dir)           # before the run; connects lazily
    script = screen_plan(oracle, click("button", "Post"), type_(...), select(...), final="Done")
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from pathlib import Path
from typing import Any, Callable

from tests.support.model_script import History, Script, ToolCall, Turn

ROW = re.compile(r'^\s*-\s+(?P<role>[\w-]+)(?:\s+"(?P<name>(?:[^"\\]|\\.)*)")?[^\n]*?\[ref=(?P<ref>[\w-]+)\]')


class ScreenOracle:
    """The test's own CDP connection to the run's browser, on a thread with its own event loop."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = Path(run_dir)
        self._loop = asyncio.new_event_loop()
        threading.Thread(target=self._loop.run_forever, name="screen-oracle", daemon=True).start()
        self._pw: Any = None
        self._browser: Any = None

    def _call(self, coro: Any, timeout: float = 60.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    def close(self) -> None:
        async def stop() -> None:
            if self._pw is not None:
                await self._pw.stop()
        try:
            self._call(stop(), 20)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)

    async def _page(self) -> Any:
        if self._browser is None or not self._browser.is_connected():
            from playwright.async_api import async_playwright

            flags = json.loads((self.run_dir / "manifest.json").read_text())["flags"]["browser"]
            profile = next(f.split("=", 1)[1] for f in flags if f.startswith("--user-data-dir="))
            port = (Path(profile) / "DevToolsActivePort").read_text().split()[0]
            self._pw = self._pw or await async_playwright().start()
            self._browser = await self._pw.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
        pages = [p for c in self._browser.contexts for p in c.pages if p.url.startswith("http")]
        return pages[-1]

    def find(self, role: str, name: str | None, exact: bool = False) -> tuple[int, int] | None:
        """Screen (x, y) of the centre of the first `role "name"` element in the page's ARIA snapshot, or None."""
        return self._call(self._find(role, name, exact))

    async def _find(self, role: str, name: str | None, exact: bool) -> tuple[int, int] | None:
        page = await self._page()
        tree = await page.aria_snapshot(mode="ai", timeout=10_000)
        for line in tree.splitlines():
            m = ROW.match(line)
            if not m or m["role"] != role:
                continue
            got = (m["name"] or "").lower()
            if name is not None and not ((got == name.lower()) if exact else (name.lower() in got)):
                continue
            loc = page.locator(f"aria-ref={m['ref']}")
            await loc.scroll_into_view_if_needed(timeout=5_000)
            box = await loc.bounding_box()
            if not box:
                return None
            off = await page.evaluate("[screenX + (outerWidth - innerWidth) / 2,"
                                      " screenY + (outerHeight - innerHeight)]")
            return int(off[0] + box["x"] + box["width"] / 2), int(off[1] + box["y"] + box["height"] / 2)
        return None


Action = Callable[[ScreenOracle, History], "list[dict[str, Any]] | None"]  # computer actions, or None: not yet


def click(role: str, name: str | None = None, exact: bool = False) -> Action:
    def act(o: ScreenOracle, h: History) -> list[dict[str, Any]] | None:
        at = o.find(role, name, exact)
        return [{"action": "left_click", "coordinate": list(at)}] if at else None
    return act


def type_(role: str, name: str, text: str, exact: bool = False, submit: bool = False) -> Action:
    def act(o: ScreenOracle, h: History) -> list[dict[str, Any]] | None:
        at = o.find(role, name, exact)
        if not at:
            return None
        return [{"action": "left_click", "coordinate": list(at)}, {"action": "key", "text": "ctrl+a"},
                {"action": "type", "text": text}] + ([{"action": "key", "text": "Return"}] if submit else [])
    return act


def select(role: str, name: str, label: str) -> Action:
    """A native <select>: focus it with a click (its popup opens), type the option's label, Return."""
    def act(o: ScreenOracle, h: History) -> list[dict[str, Any]] | None:
        at = o.find(role, name)
        return [{"action": "left_click", "coordinate": list(at)}, {"action": "type", "text": label},
                {"action": "key", "text": "Return"}] if at else None
    return act


def screen_plan(oracle: ScreenOracle, *actions: Action, final: str = "Done.", max_waits: int = 25) -> Script:
    """Play `actions` in order (one model turn each; a screenshot first, a wait while the target is not on the
    page); answers are remembered by conversation step, so a retried request gets the same turn."""
    memo: dict[int, Turn] = {}
    state = {"next": 0, "waits": 0}

    def script(request: dict[str, Any], h: History) -> Turn:
        if h.step in memo:
            return memo[h.step]
        if h.step == 0:
            turn = Turn(tool_calls=[ToolCall("computer", {"action": "screenshot"})])
        elif state["next"] >= len(actions):
            turn = Turn(text=final)
        else:
            calls = actions[state["next"]](oracle, h)
            if calls is None:
                state["waits"] += 1
                if state["waits"] > max_waits:
                    raise AssertionError(f"action {state['next']} never found its target")
                calls = [{"action": "wait", "duration": 0.4}]
            else:
                state["next"] += 1
                state["waits"] = 0
            turn = Turn(tool_calls=[ToolCall("computer", c) for c in calls])
        memo[h.step] = turn
        return turn

    return script
