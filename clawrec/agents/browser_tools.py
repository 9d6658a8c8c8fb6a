"""The browser tool set of the built-in `claude` agent: Playwright over CDP on the run's own Chromium.

Why element refs: a model acts best on what it was shown. `snapshot` returns Playwright's AI ARIA snapshot
(`- button "Search" [ref=e12]`, iframes included as `f1e3`), and click/type/select address elements by those refs
(`aria-ref=e12`), the same shape OpenClaw's browser tool uses. Errors come back as tool errors the model can read,
never as exceptions that end the run.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from patchright.async_api import BrowserContext, Error as PlaywrightError, Page

ACTION_TIMEOUT_MS = 10_000
SNAPSHOT_LIMIT = 20_000  # characters of ARIA snapshot handed to the model

REF = {"type": "string", "description": "element ref from the latest snapshot, e.g. e12 or f1e3"}
TOOLS: list[dict[str, Any]] = [
    {"name": "navigate", "description": "Open a URL in the current tab.",
     "input_schema": {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}},
    {"name": "snapshot", "description": "The current page as an accessibility tree with element refs.",
     "input_schema": {"type": "object", "properties": {}}},
    {"name": "click", "description": "Click the element with this ref.",
     "input_schema": {"type": "object", "properties": {"ref": REF}, "required": ["ref"]}},
    {"name": "type", "description": "Replace the text of an input with `text`; `submit` presses Enter after.",
     "input_schema": {"type": "object", "properties": {"ref": REF, "text": {"type": "string"},
                                                        "submit": {"type": "boolean"}},
                      "required": ["ref", "text"]}},
    {"name": "select", "description": "Choose option(s) of a <select> by value or label.",
     "input_schema": {"type": "object", "properties": {"ref": REF, "values": {"type": "array",
                                                                              "items": {"type": "string"}}},
                      "required": ["ref", "values"]}},
    {"name": "press", "description": "Press a key (Enter, Tab, ArrowDown, Escape, …) in the focused element.",
     "input_schema": {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]}},
    {"name": "scroll", "description": "Scroll the page up or down, or scroll an element (ref) into view.",
     "input_schema": {"type": "object", "properties": {"direction": {"type": "string", "enum": ["up", "down"]},
                                                        "ref": REF}}},
    {"name": "back", "description": "Go back one page in the current tab's history.",
     "input_schema": {"type": "object", "properties": {}}},
    {"name": "screenshot", "description": "A JPEG screenshot of the visible page.",
     "input_schema": {"type": "object", "properties": {}}},
    {"name": "upload", "description": "Attach one of the user's files (by file name) to a file input (ref).",
     "input_schema": {"type": "object", "properties": {"ref": REF, "file": {"type": "string"}},
                      "required": ["ref", "file"]}},
    {"name": "wait", "description": "Wait for the page: `ms` milliseconds (at most 10000), or until `text` shows.",
     "input_schema": {"type": "object", "properties": {"ms": {"type": "integer"}, "text": {"type": "string"}}}},
    {"name": "tabs", "description": "List open tabs; `switch` (an index) makes that tab current.",
     "input_schema": {"type": "object", "properties": {"switch": {"type": "integer"}}}},
    {"name": "done", "description": "Finish: the task is complete (or cannot be completed); say what happened.",
     "input_schema": {"type": "object", "properties": {"summary": {"type": "string"},
                                                        "success": {"type": "boolean"}},
                      "required": ["summary"]}},
]


class ToolError(Exception):
    """A tool call that failed in a way the model should see (bad ref, unknown file, timeout)."""


@dataclass
class ToolOutcome:
    content: list[dict[str, Any]]          # Anthropic tool_result content blocks
    is_error: bool = False
    done: bool = False
    summary: str = ""
    log_text: str = ""                     # what goes to agent.jsonl (no base64 images)
    record: dict[str, Any] = field(default_factory=dict)  # extra agent.jsonl fields (a snapshot's page)


@dataclass
class BrowserTools:
    """Tools over one browser context; the current page follows popups as they open and close."""

    context: BrowserContext
    files: list[str] = field(default_factory=list)
    page: Page | None = None

    def __post_init__(self) -> None:
        self.context.on("page", self._on_page)

    def _on_page(self, page: Page) -> None:
        self.page = page  # a popup the agent opened becomes the current tab

    async def current(self) -> Page:
        pages = [p for p in self.context.pages if not p.is_closed()]
        if self.page is None or self.page.is_closed():
            self.page = pages[-1] if pages else await self.context.new_page()
        return self.page

    async def call(self, name: str, args: dict[str, Any]) -> ToolOutcome:
        handler = getattr(self, f"_t_{name}", None)
        if handler is None:
            return _text(f"unknown tool {name!r}", error=True)
        try:
            return await handler(**(args or {}))
        except TypeError as exc:
            return _text(f"bad arguments for {name}: {exc}", error=True)
        except ToolError as exc:
            return _text(str(exc), error=True)
        except PlaywrightError as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            return _text(f"{name} failed: {first}", error=True)

    async def _locate(self, ref: str):  # noqa: ANN202 (Locator)
        if not ref or not str(ref).replace("f", "").replace("e", "").isdigit():
            raise ToolError(f"bad ref {ref!r}: use a ref from the latest snapshot, e.g. e12")
        page = await self.current()
        loc = page.locator(f"aria-ref={ref}")
        if await loc.count() == 0:
            raise ToolError(f"ref {ref} is not on the page any more; take a new snapshot")
        return loc

    async def _where(self) -> str:
        page = await self.current()
        try:
            title = await page.title()
        except PlaywrightError:
            title = ""
        return f"page: {page.url} — {title}"

    async def _t_navigate(self, url: str) -> ToolOutcome:
        page = await self.current()
        await page.goto(url, wait_until="domcontentloaded", timeout=30_000)
        return _text(f"navigated; {await self._where()}")

    async def _t_snapshot(self) -> ToolOutcome:
        page = await self.current()
        tree = await page.aria_snapshot(mode="ai", timeout=ACTION_TIMEOUT_MS)
        if len(tree) > SNAPSHOT_LIMIT:
            tree = tree[:SNAPSHOT_LIMIT] + "\n… (snapshot truncated)"
        out = _text(f"{await self._where()}\n{tree}")
        # agent.jsonl marks the result as the page's accessibility snapshot (the tree is its content): the report
        # shows it beside that step's screenshot
        out.record = {"snapshot": {"format": "aria", "url": page.url, "lines": tree.count("\n") + 1}}
        return out

    async def _t_click(self, ref: str) -> ToolOutcome:
        await (await self._locate(ref)).click(timeout=ACTION_TIMEOUT_MS)
        return _text(f"clicked {ref}; {await self._where()}")

    async def _t_type(self, ref: str, text: str, submit: bool = False) -> ToolOutcome:
        loc = await self._locate(ref)
        await loc.fill(text, timeout=ACTION_TIMEOUT_MS)
        if submit:
            await loc.press("Enter", timeout=ACTION_TIMEOUT_MS)
        return _text(f"typed into {ref}{' and pressed Enter' if submit else ''}; {await self._where()}")

    async def _t_select(self, ref: str, values: list[str] | str) -> ToolOutcome:
        values = [values] if isinstance(values, str) else list(values)
        loc = await self._locate(ref)
        try:
            chosen = await loc.select_option(values, timeout=ACTION_TIMEOUT_MS)
        except PlaywrightError:
            chosen = await loc.select_option(label=values, timeout=ACTION_TIMEOUT_MS)
        return _text(f"selected {chosen} in {ref}")

    async def _t_press(self, key: str) -> ToolOutcome:
        page = await self.current()
        await page.keyboard.press(key)
        return _text(f"pressed {key}; {await self._where()}")

    async def _t_scroll(self, direction: str = "down", ref: str | None = None) -> ToolOutcome:
        if ref:
            await (await self._locate(ref)).scroll_into_view_if_needed(timeout=ACTION_TIMEOUT_MS)
            return _text(f"scrolled {ref} into view")
        page = await self.current()
        await page.mouse.wheel(0, 600 if direction != "up" else -600)
        return _text(f"scrolled {direction}")

    async def _t_back(self) -> ToolOutcome:
        page = await self.current()
        await page.go_back(wait_until="domcontentloaded", timeout=30_000)  # None: no page (or same document)
        return _text(f"went back; {await self._where()}")

    async def _t_screenshot(self) -> ToolOutcome:
        page = await self.current()
        data = await page.screenshot(type="jpeg", quality=70, timeout=ACTION_TIMEOUT_MS)
        return ToolOutcome(content=[{"type": "image", "source": {"type": "base64", "media_type": "image/jpeg",
                                                                  "data": base64.b64encode(data).decode()}}],
                           log_text=f"[screenshot: image/jpeg, {len(data)} bytes]")

    async def _t_upload(self, ref: str, file: str) -> ToolOutcome:
        matches = [f for f in self.files if Path(f).name == Path(str(file)).name or f == file]
        if not matches:
            names = ", ".join(Path(f).name for f in self.files) or "none"
            raise ToolError(f"no such user file {file!r}; the user's files are: {names}")
        await (await self._locate(ref)).set_input_files(matches[0], timeout=ACTION_TIMEOUT_MS)
        return _text(f"attached {Path(matches[0]).name} to {ref}")

    async def _t_wait(self, ms: int = 1000, text: str | None = None) -> ToolOutcome:
        page = await self.current()
        if text:
            await page.get_by_text(text).first.wait_for(state="visible", timeout=ACTION_TIMEOUT_MS)
            return _text(f"{text!r} is on the page")
        await page.wait_for_timeout(max(0, min(int(ms), 10_000)))
        return _text(f"waited {ms} ms; {await self._where()}")

    async def _t_tabs(self, switch: int | None = None) -> ToolOutcome:
        pages = [p for p in self.context.pages if not p.is_closed()]
        if switch is not None:
            if not 0 <= switch < len(pages):
                raise ToolError(f"no tab {switch}; there are {len(pages)}")
            self.page = pages[switch]
            await self.page.bring_to_front()
        current = await self.current()
        lines = [f"{i}: {p.url}{' (current)' if p is current else ''}" for i, p in enumerate(pages)]
        return _text("\n".join(lines))

    async def _t_done(self, summary: str, success: bool = True) -> ToolOutcome:
        out = _text(f"finished: {summary}")
        out.done, out.summary = True, summary
        return out


def _text(text: str, error: bool = False) -> ToolOutcome:
    return ToolOutcome(content=[{"type": "text", "text": text}], is_error=error, log_text=text)
