"""`{sites.NAME}` placeholders: spec strings name the local sites, whose ports are random, by name; the one regex
and the one filler for the run (clawrec.taskfile), the checker (stand-in URL), annotate and the payload judge."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

PLACEHOLDER = re.compile(r"\{sites\.([A-Za-z_][A-Za-z0-9_]*)\}")
STAND_IN_SITE = "http://127.0.0.1:9/"  # what validate checks a placeholder URL as


def has_placeholder(value: Any) -> bool:
    return isinstance(value, str) and PLACEHOLDER.search(value) is not None


def fill(value: Any, urls: Mapping[str, str], *, regex: bool = False, strict: bool = True) -> Any:
    """`value` (a str, or dicts/lists/tuples of them) with `{sites.NAME}` replaced by urls[NAME] (as a base URL
    ending in "/"; escaped when the string is a regex). An unknown NAME raises KeyError naming it when `strict`
    (a spec pointing at a site that is not served), else stays as it is."""
    if isinstance(value, str):
        def sub(m: re.Match[str]) -> str:
            if m.group(1) not in urls:
                if strict:
                    raise KeyError(f"unknown site placeholder {{sites.{m.group(1)}}} (served: {', '.join(urls)})")
                return m.group(0)
            base = str(urls[m.group(1)])
            base = base if base.endswith("/") else base + "/"
            return re.escape(base) if regex else base
        return PLACEHOLDER.sub(sub, value)
    if isinstance(value, dict):
        return {k: fill(v, urls, regex=regex, strict=strict) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(fill(v, urls, regex=regex, strict=strict) for v in value)
    return value


def stand_in(text: str, regex: bool = False) -> str:
    """`text` with every placeholder replaced by a stand-in base URL, for checking (escaped inside a regex)."""
    return PLACEHOLDER.sub(lambda _m: re.escape(STAND_IN_SITE) if regex else STAND_IN_SITE, text)
