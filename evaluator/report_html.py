"""Escaping for report.html: every string a page, an agent or a payload could have written is untrusted.

Text goes through `esc` (html.escape, quotes too); data for the page's script goes through `script_json`, which
escapes `<`, `>`, `&` and the JavaScript line separators so that no value can close the <script> element it sits in;
the script only ever puts such values into the page with `textContent`. No page-derived string becomes a link.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from typing import Any

TEXT_LIMIT = 2000


def esc(value: Any) -> str:
    """Escaped text of any value (dicts and lists as JSON)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        value = json.dumps(value, ensure_ascii=False, default=str)
    return html.escape(value, quote=True)


def clip(value: Any, limit: int = TEXT_LIMIT) -> str:
    """A value as text, cut to `limit` characters (not escaped)."""
    s = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return s if len(s) <= limit else s[:limit] + f"… [{len(s) - limit} more characters]"


def short(value: Any, limit: int = TEXT_LIMIT) -> str:
    """Escaped and cut."""
    return esc(clip(value, limit))


def script_json(data: Any) -> str:
    """JSON safe to place inside <script type=application/json> (cannot end the element or open a comment)."""
    text = json.dumps(data, ensure_ascii=False, default=str, separators=(",", ":"))
    return (text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def asset(name: str) -> str:
    """A file of evaluator/report_assets/ (the page's CSS and script), inlined into every report."""
    return resources.files("evaluator").joinpath("report_assets", name).read_text(encoding="utf-8")


def fmt_t(t: float | None) -> str:
    return "" if t is None else f"{t:.2f}s"
