"""The run's browser for the built-in agents that drive it themselves (claude, replay, random).

Why patchright and not Playwright: Playwright's connect_over_cdp enables Runtime in every page, which a page can
detect (docs/explanation/footprint.md; tests/footprint/test_builtin_agents.py). Imported only when an agent runs,
so listing or checking agents never loads it.
"""

from __future__ import annotations

import contextlib
from typing import Any, AsyncIterator


@contextlib.asynccontextmanager
async def run_context(cdp_url: str) -> AsyncIterator[Any]:
    """The browser's first context (the one the run's tab lives in), through patchright; closed with the block."""
    from patchright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.connect_over_cdp(cdp_url)
        yield browser.contexts[0] if browser.contexts else await browser.new_context()
