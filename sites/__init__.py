"""Local live-like websites (travel, jobs, shop + its card host, social) with a server-side truth log.

Specs cannot name the sites' ports (they are random), so spec strings carry `{sites.NAME}` placeholders that
`expand_site_urls` replaces with the served base URLs (each ends with "/").
"""

from __future__ import annotations

import re
from typing import Any

PLACEHOLDER = re.compile(r"\{sites\.([A-Za-z_][A-Za-z0-9_]*)\}")


def expand_site_urls(value: Any, urls: dict[str, str]) -> Any:
    """Return `value` (str, or dict/list/tuple of them, nested) with `{sites.NAME}` replaced by urls[NAME].

    An unknown NAME raises KeyError naming it: a spec pointing at a site that is not served is a bug.
    """
    if isinstance(value, str):
        def sub(m: re.Match) -> str:
            if m.group(1) not in urls:
                raise KeyError(f"unknown site placeholder {{sites.{m.group(1)}}} (served: {', '.join(urls)})")
            return urls[m.group(1)]
        return PLACEHOLDER.sub(sub, value)
    if isinstance(value, dict):
        return {k: expand_site_urls(v, urls) for k, v in value.items()}
    if isinstance(value, list):
        return [expand_site_urls(v, urls) for v in value]
    if isinstance(value, tuple):
        return tuple(expand_site_urls(v, urls) for v in value)
    return value


__all__ = ["expand_site_urls"]
