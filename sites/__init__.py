"""Local live-like websites (travel, jobs, shop + its card host, social) with a server-side truth log.

Specs cannot name the sites' ports (they are random), so spec strings carry `{sites.NAME}` placeholders that
`expand_site_urls` replaces with the served base URLs (each ends with "/").
"""

from __future__ import annotations

from typing import Any

from taskspec.placeholders import PLACEHOLDER, fill


def expand_site_urls(value: Any, urls: dict[str, str]) -> Any:
    """`value` (str, or dict/list/tuple of them, nested) with `{sites.NAME}` replaced by urls[NAME]; an unknown NAME
    raises KeyError naming it (a spec pointing at a site that is not served is a bug)."""
    return fill(value, urls)


__all__ = ["PLACEHOLDER", "expand_site_urls"]
