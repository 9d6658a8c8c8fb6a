"""Headless Chromium without its tell-tale: the user agent says "HeadlessChrome" (in every target, workers too);
the client hints brands do not. Each target gets the headed user agent and its full client hints metadata through a
user-agent override queued before it runs (Emulation for frames, Network for workers).

Why an override and not `--user-agent`: that flag blanks the high-entropy client hints (architecture, bitness,
fullVersionList read as ""), which a page can tell from a person's browser (tests/footprint measured both). The
metadata is what headed Chromium of the same version reports: its GREASE brand follows Chromium's algorithm
(components/embedder_support/user_agent_utils.cc), checked against the bare browser by tests/footprint.
"""

from __future__ import annotations

import asyncio
import platform
import re
from typing import Any

from interceptor.cdp import Session

GREASE_CHARS = [" ", "(", ":", "-", ".", "/", ")", ";", "=", "?", "_"]
GREASE_VERSIONS = ["8", "99", "24"]
FRAME_TYPES = ("page", "iframe")
WORKER_TYPES = ("worker", "shared_worker", "service_worker")


def brands(major: int, full: str) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """(brands, fullVersionList) of a Chromium build (no vendor brand), in Chromium's GREASE order for `major`."""
    seed = major
    grease = f"Not{GREASE_CHARS[seed % 11]}A{GREASE_CHARS[(seed + 1) % 11]}Brand"
    gver = GREASE_VERSIONS[seed % 3]
    short = [{"brand": grease, "version": gver}, {"brand": "Chromium", "version": str(major)}]
    long = [{"brand": grease, "version": f"{gver}.0.0.0"}, {"brand": "Chromium", "version": full}]
    if seed % 2:
        short.reverse()
        long.reverse()
    return short, long


def override(version: dict[str, Any]) -> dict[str, Any] | None:
    """The Emulation/Network.setUserAgentOverride params for a headless browser (Browser.getVersion's answer), or
    None for a headed one."""
    ua = str(version.get("userAgent") or "")
    if "HeadlessChrome/" not in ua:
        return None
    m = re.search(r"/(\d+)\.(\d+\.\d+\.\d+)", str(version.get("product") or ""))
    if not m:
        return {"userAgent": ua.replace("HeadlessChrome/", "Chrome/")}
    major, full = int(m.group(1)), f"{m.group(1)}.{m.group(2)}"
    short, long = brands(major, full)
    arch = platform.machine()
    return {"userAgent": ua.replace("HeadlessChrome/", "Chrome/"), "userAgentMetadata": {
        "brands": short, "fullVersionList": long, "fullVersion": full, "platform": "Linux", "platformVersion": "",
        "architecture": "arm" if arch.startswith(("arm", "aarch")) else "x86",
        "model": "", "mobile": False, "bitness": "64" if "64" in arch else "32", "wow64": False}}


class HeadlessMask:
    """Queues the user-agent override on each target (no-op for a headed browser)."""

    def __init__(self) -> None:
        self.params: dict[str, Any] | None = None

    async def learn(self, root: Session) -> None:
        self.params = override(await root.send("Browser.getVersion"))

    def prepare(self, session: Session) -> list[asyncio.Future]:
        if self.params is None:
            return []
        if session.target_type in FRAME_TYPES:
            return [session.send("Emulation.setUserAgentOverride", self.params)]
        if session.target_type in WORKER_TYPES:
            session.send_quiet("Network.setUserAgentOverride", self.params)  # best effort: not every worker has it
        return []
