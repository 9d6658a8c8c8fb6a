"""The shared demo scripts (tests/support/scripts, written for OpenClaw's `browser` tool) played to the computer-use
agent (tests/support/cu_demo.py): the plan runs on a conversation of its own, whose snapshots are the run's ARIA snapshot
read by the test-side oracle (tests/support/screen_plan.py), and each page action it picks becomes computer-tool
calls at true screen coordinates (a click, ctrl+a and typing, a native select by its option's label, the address
bar for a navigation). The agent under test only ever gets computer-tool calls, as from a real model.

An `upload` is a person's: a click on the file input opens Chromium's GTK file chooser (an X window outside the
page), and once that dialog has the keyboard focus, ctrl+L, the file's path and alt+O ("Open"; Return in the location
field closes this chooser without a file, measured); the plan goes on once the input holds the file.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any, Callable

from tests.support.model_script import History, Message, Script, ToolCall, Turn
from tests.support.screen_plan import ScreenOracle

PASSIVE = {"snapshot", "wait"}


class PlanOracle(ScreenOracle):
    """The oracle's page seen as the plan sees it: its ARIA snapshot, and where a ref is on the screen."""

    def snapshot(self) -> str:
        async def snap() -> str:
            return await (await self._page()).aria_snapshot(mode="ai", timeout=10_000)
        return self._call(snap())

    def at(self, ref: str, screen: bool = True) -> tuple[int, int] | None:
        """The centre of a ref's element on the screen (or in the viewport); None while it is not there or moving."""
        async def where() -> tuple[int, int] | None:
            page = await self._page()
            loc = page.locator(f"aria-ref={ref}")
            # the element's own scrollIntoViewIfNeeded: it also scrolls the page for an element in an out-of-process
            # iframe (the shop's card frame), where playwright's scroll_into_view_if_needed never sees it 'stable'
            try:
                await loc.evaluate("el => el.scrollIntoViewIfNeeded(true)", timeout=5_000)
            except Exception:  # noqa: BLE001 - not on the page (yet): the plan waits and looks again
                return None
            box = await loc.bounding_box()
            await page.evaluate("new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
            if not box or box != await loc.bounding_box():  # gone, or moving (an animation): wait and look again
                return None
            off = await page.evaluate("[screenX + (outerWidth - innerWidth) / 2, screenY + (outerHeight - innerHeight)]")
            off = off if screen else [0, 0]
            return int(off[0] + box["x"] + box["width"] / 2), int(off[1] + box["y"] + box["height"] / 2)
        return self._call(where())

    def input_type(self, ref: str) -> str:
        async def kind() -> str:
            return await (await self._page()).locator(f"aria-ref={ref}").evaluate("el => el.type || ''")
        return self._call(kind())

    def describe(self, ref: str) -> tuple[str, str, str]:
        """(id attribute, accessible name or label text, tag) of a ref's element."""
        async def what() -> list[str]:
            page = await self._page()
            return await page.locator(f"aria-ref={ref}").evaluate(
                "el => [el.id || '', el.getAttribute('aria-label') || (el.labels && el.labels[0] ? "
                "el.labels[0].innerText : '') || el.innerText || '', el.tagName.toLowerCase()]")
        ident, name, tag = self._call(what())
        return ident, name.strip().splitlines()[0] if name.strip() else "", tag

    def file_dialog_focused(self) -> bool:
        """Chromium's GTK file chooser is on the run's display and has the keyboard focus (keys now reach it)."""
        display = json.loads((Path(self.run_dir) / "manifest.json").read_text())["display"]
        env = {**os.environ, "DISPLAY": display}

        def xdotool(*args: str) -> str:
            done = subprocess.run(["xdotool", *args], capture_output=True, text=True, env=env, timeout=15)
            return done.stdout.strip() if done.returncode == 0 else ""
        dialogs = xdotool("search", "--onlyvisible", "--name", "^Open File$").split()
        return bool(dialogs) and xdotool("getwindowfocus") in dialogs

    def has_file(self, ref: str) -> bool:
        async def files() -> int:
            page = await self._page()
            return await page.locator(f"aria-ref={ref}").evaluate("el => el.files ? el.files.length : 0")
        return bool(self._call(files()))

    def option_label(self, ref: str, value: str) -> str:
        async def label() -> str:
            page = await self._page()
            return await page.locator(f"aria-ref={ref}").evaluate(
                "(el, v) => ([...el.options].find(o => o.value === v || o.label === v) || {label: v}).label", value)
        return self._call(label())


def _kind(a: dict[str, Any]) -> str:
    return a.get("kind") if a.get("action") == "act" else a.get("action", "")


Stage = Callable[[], "list[dict[str, Any]] | None"]  # one later turn's computer calls; None: wait and look again


def _upload(oracle: PlanOracle, ref: str, path: str) -> list[Stage]:
    """After the click on the file input: the path typed into the GTK chooser, then a wait for the input's file."""
    keys = [{"action": "key", "text": "ctrl+l"}, {"action": "type", "text": path}, {"action": "key", "text": "alt+o"}]
    return [lambda: keys if oracle.file_dialog_focused() else None, lambda: [] if oracle.has_file(ref) else None]


def _actions(oracle: PlanOracle, a: dict[str, Any], later: list[Stage]) -> list[dict[str, Any]] | None:
    """Computer-tool calls for one OpenClaw `browser` call (None: its element is not on the screen yet); an action
    spanning turns (an upload) appends its later turns to `later`."""
    kind = _kind(a)
    if kind == "navigate":
        return [{"action": "key", "text": "ctrl+l"}, {"action": "type", "text": a["url"]},
                {"action": "key", "text": "Return"}]
    if kind == "wait":
        return [{"action": "wait", "duration": max(0.2, int(a.get("timeMs") or 400) / 1000)}]
    at = oracle.at(a["ref"])
    if at is None:
        return None
    click = {"action": "left_click", "coordinate": list(at)}
    if kind == "upload":
        later.extend(_upload(oracle, a["ref"], a["paths"][0]))
    if kind in ("click", "upload"):
        return [click]
    if kind == "type":
        text = a["text"]
        if oracle.input_type(a["ref"]) == "date" and re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            text = text[5:7] + text[8:10] + text[:4]  # a date input takes its en-US segments by keyboard
        return [click, {"action": "key", "text": "ctrl+a"}, {"action": "type", "text": text}] + (
            [{"action": "key", "text": "Return"}] if a.get("submit") else [])
    if kind == "select":
        return [click, {"action": "type", "text": oracle.option_label(a["ref"], a["values"][0])},
                {"action": "key", "text": "Return"}]
    raise AssertionError(f"no computer action for {a}")


def screen_bridge(oracle: PlanOracle, script: Script) -> Script:
    """One run's computer-use script playing `script`; answers are remembered by step (a retry gets the same turn)."""
    memo: dict[int, Turn] = {}
    mine: list[Message] = []
    later: list[Stage] = []
    waits = {"n": 0}

    def answer(request: dict[str, Any]) -> Turn:
        while later:  # the rest of an action that spans turns
            acts = later[0]()
            if acts is None:
                waits["n"] += 1
                if waits["n"] > 60:
                    raise AssertionError("a multi-turn action (an upload) never got its next state")
                return Turn(tool_calls=[ToolCall("computer", {"action": "wait", "duration": 0.4})])
            later.pop(0)
            waits["n"] = 0
            if acts:
                return Turn(tool_calls=[ToolCall("computer", c) for c in acts])
        for _ in range(60):
            turn = script(request, History("anthropic", request, mine, []))
            if not turn.tool_calls:
                return Turn(text=turn.text)
            call = turn.tool_calls[0]
            cid = f"b{len(mine)}"
            if _kind(call.arguments) == "snapshot":
                result = oracle.snapshot()
            else:
                acts = _actions(oracle, call.arguments, later)
                if acts is None:  # not on the screen yet: the plan sees a wait
                    call, acts = ToolCall("browser", {"action": "act", "kind": "wait", "timeMs": 400}), [
                        {"action": "wait", "duration": 0.4}]
                result = "ok"
            mine.extend([Message("assistant", tool_calls=[ToolCall("browser", call.arguments, cid)]),
                         Message("tool", result, tool_call_id=cid)])
            if _kind(call.arguments) != "snapshot":
                return Turn(tool_calls=[ToolCall("computer", c) for c in acts])
        raise AssertionError("the plan asked for 60 snapshots in a row")

    def wrapped(request: dict[str, Any], h: History) -> Turn:
        if h.step in memo:
            return memo[h.step]
        if h.step == 0:
            mine.append(next(m for m in h.messages if m.role == "user"))
            turn = Turn(tool_calls=[ToolCall("computer", {"action": "screenshot"})])
        else:
            turn = answer(request)
        memo[h.step] = turn
        return turn

    return wrapped
