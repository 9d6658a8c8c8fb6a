"""One event loop thread per test module holding the channel server, a real Chromium (site-per-process) and a
Playwright connection over CDP; tests hand it coroutines with `run()`."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any, Coroutine

from taskspec.model import Rule, Spec
from recorder.browser import Browser, launch_browser
from tests.interceptor.channels import ChannelServer


def make_spec(rules: list[Rule], files: tuple[Path, ...] = ()) -> Spec:
    return Spec(path=Path("test.yaml"), sha256="0" * 64, id="test", instruction="test", start_url="about:blank",
                intercept=tuple(rules), files=files)


def channel_rules(server: ChannelServer) -> list[Rule]:
    """Terminal = a submission with an order and confirm=yes, on both sites, over HTTP and WebSocket."""
    common = {"fields": ("order",), "equals": {"confirm": "yes"}}
    return [Rule(index=0, url=f"{server.base}/submit/**", methods=("GET", "POST", "PUT", "PATCH"), **common),
            Rule(index=1, url=f"{server.other}/submit/**", methods=("POST",), **common),
            Rule(index=2, url=f"ws://127.0.0.1:{server.port}/ws", **common)]


class Harness:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="harness-loop", daemon=True)
        self.thread.start()
        self.server = ChannelServer()
        self.browser: Browser | None = None
        self.pw: Any = None
        self.pw_browser: Any = None

    def run(self, coro: Coroutine, timeout: float = 90.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def start(self, playwright: bool = True) -> "Harness":
        self._runner = self.run(self.server.start())
        self.browser = launch_browser(headless=True, site_per_process=True)
        if playwright:
            self.run(self._pw_start())
        return self

    async def _pw_start(self) -> None:
        from playwright.async_api import async_playwright
        self.pw = await async_playwright().start()
        self.pw_browser = await self.pw.chromium.connect_over_cdp(self.browser.http_url)

    async def _pw_stop(self) -> None:
        if self.pw is not None:
            try:
                await self.pw_browser.close()
            except Exception:
                pass
            await self.pw.stop()
        await self._runner.cleanup()

    def stop(self) -> None:
        try:
            self.run(self._pw_stop(), timeout=30)
        finally:
            if self.browser is not None:
                self.browser.close()
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)


async def wait_until(predicate, timeout: float = 20.0, interval: float = 0.02) -> bool:
    """Poll a cheap predicate (server log / catches list) until true; False on timeout."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if predicate():
            return True
        await asyncio.sleep(interval)
    return bool(predicate())
