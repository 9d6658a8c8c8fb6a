"""Run every site on its own 127.0.0.1 port-0 server in a background thread: `serve_sites()`.

Why one background loop: tests, the CLI and the benchmarks all need the sites while their own code (Playwright,
the interceptor) runs in the foreground; one thread with one asyncio loop serves all sites and the shared log.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from aiohttp import web

from sites.common import DEFAULT_FROZEN_TIME, FROZEN_ENV, SiteContext, parse_frozen
from sites.truthlog import TruthLog

# name -> "module:function" building the aiohttp app. shop_pay is the shop's cross-origin card-iframe host.
SITE_APPS: dict[str, str] = {
    "travel": "sites.travel.app:make_app",
    "jobs": "sites.jobs.app:make_app",
    "shop": "sites.shop.app:make_app",
    "shop_pay": "sites.shop.pay:make_app",
    "social": "sites.social.app:make_app",
    "basket": "sites.basket.app:make_app",
}
# Hosts used in base URLs; shop_pay uses "localhost" so the card iframe is cross-SITE as well as cross-origin
# (an out-of-process iframe under --site-per-process), still loopback only.
HOSTS: dict[str, str] = {"shop_pay": "localhost"}


AppMaker = Callable[[SiteContext], web.Application]


def _load(ref: str) -> AppMaker:
    import importlib

    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)


class SitesServer:
    """Handle returned by `serve_sites`: base URLs, the truth log, and helpers to read and await it."""

    def __init__(self, log_path: Path, urls: dict[str, str], log: TruthLog, now: datetime) -> None:
        self.log_path = log_path
        self.urls = urls
        self.now = now  # the frozen time every page and server uses
        self._log = log
        self._cache: list[dict[str, Any]] = []
        self._offset = 0
        self._lock = threading.Lock()

    def records(self) -> list[dict[str, Any]]:
        """Every record so far, in arrival order (read incrementally: polling a long session log stays cheap)."""
        with self._lock:
            try:
                with open(self.log_path, "rb") as fh:
                    fh.seek(self._offset)
                    chunk = fh.read()
            except FileNotFoundError:
                return list(self._cache)
            end = chunk.rfind(b"\n") + 1  # only complete lines; a line being written waits for the next call
            for line in chunk[:end].splitlines():
                if line.strip():
                    self._cache.append(json.loads(line))
            self._offset += end
            return list(self._cache)

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 10.0) -> dict[str, Any]:
        """The first log record satisfying `predicate`; TimeoutError after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            for rec in self.records():
                if predicate(rec):
                    return rec
            if time.monotonic() > deadline:
                raise TimeoutError(f"no request matching the predicate reached the sites within {timeout}s")
            time.sleep(0.05)

    def clear(self) -> None:
        """Empty the log (for callers that own the server; shared fixtures should filter by time instead)."""
        with self._lock:
            self._log.clear()
            self._cache, self._offset = [], 0


async def _start(names: list[str], ctxs: dict[str, SiteContext], makers: Mapping[str, AppMaker],
                 hosts: Mapping[str, str]) -> tuple[list[web.AppRunner], dict[str, str]]:
    runners, urls = [], {}
    for name in names:
        app = makers[name](ctxs[name])
        runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1.0)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        urls[name] = f"http://{hosts.get(name, '127.0.0.1')}:{port}/"
        runners.append(runner)
    return runners, urls


@contextlib.contextmanager
def serve_sites(log_path: Path | None = None, frozen_time: str | None = None, sites: list[str] | None = None,
                apps: Mapping[str, AppMaker] | None = None,
                hosts: Mapping[str, str] | None = None) -> Iterator[SitesServer]:
    """Serve all sites until the block ends. Frozen time: argument, else $CLAWREC_SITES_FROZEN_TIME, else a
    fixed default. Without `log_path` the log lives in a temporary directory removed on exit. `apps` serves other
    applications instead of the built-in sites (generated ones: factory/), `hosts` their base URLs' hosts."""
    now = parse_frozen(frozen_time or os.environ.get(FROZEN_ENV) or DEFAULT_FROZEN_TIME)
    tmpdir = None
    if log_path is None:
        tmpdir = tempfile.mkdtemp(prefix="clawrec-sites-")
        log_path = Path(tmpdir) / "sites.jsonl"
    log = TruthLog(Path(log_path))
    makers: Mapping[str, AppMaker] = apps if apps is not None else {n: _load(r) for n, r in SITE_APPS.items()}
    hosts = hosts if hosts is not None else HOSTS
    names = list(sites or makers)
    urls: dict[str, str] = {}
    ctxs = {n: SiteContext(name=n, now=now, log=log, urls=urls) for n in names}
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    box: dict[str, Any] = {}

    def run() -> None:
        asyncio.set_event_loop(loop)
        try:
            box["runners"], bound = loop.run_until_complete(_start(names, ctxs, makers, hosts))
            urls.update(bound)
        except BaseException as exc:  # reported to the caller below
            box["error"] = exc
            ready.set()
            return
        ready.set()
        loop.run_forever()

    thread = threading.Thread(target=run, name="clawrec-sites", daemon=True)
    thread.start()
    ready.wait(30)
    try:
        if "error" in box:
            raise RuntimeError(f"sites failed to start: {box['error']}") from box["error"]
        if not ready.is_set():
            raise RuntimeError("sites did not start within 30s")
        yield SitesServer(Path(log_path), urls, log, now)
    finally:
        async def _stop() -> None:
            for runner in box.get("runners", []):
                await runner.cleanup()

        if loop.is_running():
            asyncio.run_coroutine_threadsafe(_stop(), loop).result(15)
            loop.call_soon_threadsafe(loop.stop)
        thread.join(15)
        if not loop.is_running():
            loop.close()
        log.close()
        if tmpdir:
            shutil.rmtree(tmpdir, ignore_errors=True)
