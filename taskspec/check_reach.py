"""Spec checks about what a run would reach outside the spec itself (issue 16): files handed to the agent, and
rules that would block the start page.

Why: `files: [../../../../etc/shadow]` validated and the file was handed to the agent in CLAWREC_TASK; a catch-all
rule (`url: "**"`) blocked the start page and the run died with `CDPError … net::ERR_BLOCKED_BY_CLIENT`, naming
neither the rule nor the cause. Both are now one `FILE:LINE: field: message` line from `clawrec validate` and
`clawrec run`, before any browser starts.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taskspec.match import matches
from taskspec.model import Rule
from taskspec.payload import Body
from taskspec.placeholders import PLACEHOLDER, fill

if TYPE_CHECKING:
    from taskspec.check import FieldChecker


def check_files_inside(c: "FieldChecker", files: list[Any], base: Path) -> None:
    """Each listed file must resolve (symlinks followed) inside the spec's folder; `--allow-outside-files` lifts
    this (the caller then does not call it)."""
    root = base.resolve()
    for i, item in enumerate(files):
        if not isinstance(item, str) or not item.strip() or Path(item).is_absolute():
            continue  # reported by FieldChecker.relative_path
        resolved = (base / item).resolve()
        if resolved.exists() and not resolved.is_relative_to(root):
            c.bad(("files", i), f"'{item}' resolves outside the spec's folder ({resolved}); files handed to the "
                                f"agent must live under {root} (or pass --allow-outside-files)")


def check_start_page(c: "FieldChecker", start_url: str | None, rules: tuple[Rule, ...]) -> None:
    """A rule that matches the start page's GET would block the page the run opens: name it."""
    if not start_url or start_url == "about:blank":
        return
    # Each site gets its own stand-in host: `{sites.shop}**` must not seem to match a `{sites.travel}` start page.
    texts = [start_url] + [t for r in rules for t in (r.url, r.url_regex) if t]
    urls = {name: f"http://{name.lower().replace('_', '-')}.sites.invalid/"
            for t in texts for name in PLACEHOLDER.findall(t)}
    url = fill(start_url, urls)
    for rule in rules:
        stood_in = dataclasses.replace(rule, url=fill(rule.url, urls), url_regex=fill(rule.url_regex, urls, regex=True))
        if not stood_in.is_websocket and matches(stood_in, "GET", url, Body("empty")):
            field = "url" if rule.url is not None else "url_regex"
            c.bad(("intercept", rule.index, field), f"{rule.name} matches the start page (GET {start_url}): the "
                                                    f"browser could not open it; narrow the rule (a method such as "
                                                    f"POST, or a longer URL)")
