"""Browser tools for Inspect agents on clawrec's instrumented browser.

The same actions as clawrec's built-in `claude` agent (clawrec/agents/browser_tools.py does the work; these are its
Inspect faces): navigate, click, type, select, scroll, key, back, screenshot, snapshot (the page's accessibility
tree with element refs), plus upload, wait and tabs. Each acts on the browser of the clawrec run its sample is in
(clawrec/inspect/session.py) and is recorded in that run's agent.jsonl; outside a clawrec run a call is a tool
error. `browser_tools()` gives the list for `react(tools=...)` or `use_tools(...)`.
"""

from __future__ import annotations

from inspect_ai.tool import Tool, ToolResult, tool

from clawrec.inspect.session import current


@tool
def navigate() -> Tool:
    async def execute(url: str) -> ToolResult:
        """Open a URL in the current tab.

        Args:
            url: The address to open.
        """
        return await current().call("navigate", {"url": url})

    return execute


@tool
def snapshot() -> Tool:
    async def execute() -> ToolResult:
        """The current page as an accessibility tree; each element has a ref (e12, f1e3) for click/type/select."""
        return await current().call("snapshot", {})

    return execute


@tool
def click() -> Tool:
    async def execute(ref: str) -> ToolResult:
        """Click the element with this ref.

        Args:
            ref: Element ref from the latest snapshot, e.g. e12 or f1e3.
        """
        return await current().call("click", {"ref": ref})

    return execute


@tool(name="type")
def type_text() -> Tool:
    async def execute(ref: str, text: str, submit: bool = False) -> ToolResult:
        """Replace the text of an input with `text`.

        Args:
            ref: Element ref from the latest snapshot.
            text: The text to type.
            submit: Press Enter after typing.
        """
        return await current().call("type", {"ref": ref, "text": text, "submit": submit})

    return execute


@tool
def select() -> Tool:
    async def execute(ref: str, values: list[str]) -> ToolResult:
        """Choose option(s) of a <select> by value or label.

        Args:
            ref: Element ref of the select from the latest snapshot.
            values: Option values or labels to choose.
        """
        return await current().call("select", {"ref": ref, "values": values})

    return execute


@tool
def scroll() -> Tool:
    async def execute(direction: str = "down", ref: str | None = None) -> ToolResult:
        """Scroll the page up or down, or scroll an element into view.

        Args:
            direction: "up" or "down".
            ref: Element ref to scroll into view (instead of a direction).
        """
        return await current().call("scroll", {"direction": direction, "ref": ref})

    return execute


@tool
def key() -> Tool:
    async def execute(key: str) -> ToolResult:
        """Press a key (Enter, Tab, ArrowDown, Escape, …) in the focused element.

        Args:
            key: The key's name.
        """
        return await current().call("key", {"key": key})

    return execute


@tool
def back() -> Tool:
    async def execute() -> ToolResult:
        """Go back one page in the current tab's history."""
        return await current().call("back", {})

    return execute


@tool
def screenshot() -> Tool:
    async def execute() -> ToolResult:
        """A JPEG screenshot of the visible page."""
        return await current().call("screenshot", {})

    return execute


@tool
def upload() -> Tool:
    async def execute(ref: str, file: str) -> ToolResult:
        """Attach one of the user's files (by file name) to a file input.

        Args:
            ref: Element ref of the file input.
            file: The file's name, as listed in the task.
        """
        return await current().call("upload", {"ref": ref, "file": file})

    return execute


@tool
def wait() -> Tool:
    async def execute(ms: int = 1000, text: str | None = None) -> ToolResult:
        """Wait for the page: `ms` milliseconds (at most 10000), or until `text` shows.

        Args:
            ms: Milliseconds to wait.
            text: Text to wait for instead.
        """
        return await current().call("wait", {"ms": ms, "text": text})

    return execute


@tool
def tabs() -> Tool:
    async def execute(switch: int | None = None) -> ToolResult:
        """List open tabs; `switch` (an index) makes that tab current.

        Args:
            switch: Index of the tab to make current.
        """
        return await current().call("tabs", {"switch": switch})

    return execute


def browser_tools() -> list[Tool]:
    """Every browser tool, for an Inspect agent: `react(tools=browser_tools())`."""
    return [navigate(), snapshot(), click(), type_text(), select(), scroll(), key(), back(), screenshot(), upload(),
            wait(), tabs()]
