"""Shared by the record tests: the CLI as a subprocess, and a `command` agent made of a few Playwright steps."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def clawrec(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "clawrec.cli", *args], capture_output=True, text=True, cwd=REPO,
                          timeout=180, **kw)


def playwright_agent(folder: Path, steps: str) -> str:
    """An --agent-cmd running `steps` (async Playwright lines using `page`) in the run's first tab."""
    script = Path(folder) / "agent.py"
    script.write_text("import asyncio, os\nfrom playwright.async_api import async_playwright\n\n"
                      "async def main():\n    async with async_playwright() as pw:\n"
                      "        browser = await pw.chromium.connect_over_cdp(os.environ['CLAWREC_CDP_URL'])\n"
                      "        page = browser.contexts[0].pages[0]\n"
                      + textwrap.indent(textwrap.dedent(steps).strip() + "\n", " " * 8)
                      + "\nasyncio.run(main())\n")
    return f"{sys.executable} {script}"
