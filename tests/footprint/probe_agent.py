"""A probe agent for tests/footprint/measure_agents.py: connects to the run's browser the way the built-in agents do
(`connect_over_cdp` of the library named by argv[2]: playwright, or patchright), opens the detector page again (an
agent's next navigation) and waits until the file argv[1] exists (at most 120 s)."""

import asyncio
import importlib
import os
import sys
import time
from pathlib import Path


async def main() -> None:
    lib = importlib.import_module(sys.argv[2] + ".async_api")
    async with lib.async_playwright() as pw:
        browser = await pw.chromium.connect_over_cdp(os.environ["CLAWREC_CDP_URL"])
        page = browser.contexts[0].pages[0]
        await page.goto(page.url + "&agent=1")
        deadline = time.monotonic() + 120
        while not Path(sys.argv[1]).exists() and time.monotonic() < deadline:
            await asyncio.sleep(0.1)


asyncio.run(main())
