"""Shared by the record tests: the CLI as a subprocess, a `command` agent made of a few Playwright steps, and a
running command's stderr read line by line."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator
from tests.support.wait import wait_for  # noqa: F401 (the record tests import it from here)

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


class StderrLines:
    """The record process's stderr, read on a thread; `wait(pattern)` returns the first line matching it."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.lines: list[str] = []
        self._proc = proc
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self._proc.stderr:
            self.lines.append(line.rstrip("\n"))

    def wait(self, pattern: str, timeout: float = 60) -> re.Match:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.lines):
                if m := re.search(pattern, line):
                    return m
            assert self._proc.poll() is None, "\n".join(self.lines)
            time.sleep(0.1)
        raise AssertionError(f"no stderr line matching {pattern!r}:\n" + "\n".join(self.lines))


@contextmanager
def recording(spec: Path, run: Path, *flags: str) -> Iterator[tuple[subprocess.Popen, "StderrLines"]]:
    """`clawrec record SPEC --run-dir RUN FLAGS…` as a subprocess (stdin for a/b answers); yields (process, its
    stderr lines); killed if it is still running when the block ends."""
    proc = subprocess.Popen([sys.executable, "-m", "clawrec.cli", "record", str(spec), *flags, "--run-dir", str(run)],
                            cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        yield proc, StderrLines(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def cut_run(run, dest, t: float):
    """A copy of the run holding only what happened up to `t` (seconds on the run's clock) in each JSONL layer."""
    shutil.copytree(run, dest, ignore=shutil.ignore_patterns("screenshots", "*.har"))
    for path in dest.glob("*.jsonl"):
        kept = [line for line in path.read_text().splitlines() if json.loads(line).get("t", 0) <= t]
        path.write_text("".join(line + "\n" for line in kept))
    return dest
