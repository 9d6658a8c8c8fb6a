"""Helpers for the sites tests: load a demo spec, drive a site with Playwright, read payloads from the log."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any, Awaitable, Callable
from urllib.parse import parse_qs

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "specs" / "demo"


def load_spec(spec_id: str) -> dict[str, Any]:
    return yaml.safe_load((DEMO / f"{spec_id}.yaml").read_text())


def spec_files(spec: dict[str, Any]) -> dict[str, Path]:
    return {Path(f).name: DEMO / f for f in spec.get("files", [])}


def payload(record: dict[str, Any]) -> Any:
    """The request body as data: JSON, urlencoded (single values), or multipart (text values by name)."""
    ct = record.get("content_type", "")
    if "parts" in record:
        return {p["name"]: p.get("value", p) for p in record["parts"]}
    if "application/x-www-form-urlencoded" in ct:
        return {k: v[0] for k, v in parse_qs(record["body"], keep_blank_values=True).items()}
    return json.loads(record["body"])


def get_path(obj: Any, dotted: str) -> Any:
    for seg in dotted.split("."):
        obj = obj[int(seg)] if isinstance(obj, list) else obj[seg]
    return obj


def assert_expect(data: Any, expect: dict[str, Any]) -> None:
    """Every `expect` entry of the spec is in the payload (YAML scalars compared as strings when needed)."""
    for path, want in expect.items():
        got = get_path(data, path)
        assert got == want or str(got) == str(want), f"{path}: got {got!r}, want {want!r}"


def since(records: list[dict], start: float, site: str) -> list[dict]:
    return [r for r in records if r["t"] >= start and r["site"] == site]


@pytest.fixture(scope="session")
def pw_browser():
    """One headless Chromium (Playwright, real binary) and its event loop for all sites tests; fails loudly if
    Chromium is missing."""
    from playwright.async_api import async_playwright

    from recorder.browser import find_chromium

    loop = asyncio.new_event_loop()
    pw = loop.run_until_complete(async_playwright().start())
    try:
        browser = loop.run_until_complete(pw.chromium.launch(executable_path=find_chromium(),
                                                             args=["--site-per-process"]))
        try:
            yield loop, browser
        finally:
            loop.run_until_complete(browser.close())
    finally:
        loop.run_until_complete(pw.stop())
        loop.close()


@pytest.fixture
def drive_site(sites, pw_browser) -> Callable[..., tuple[float, Any]]:
    """`drive_site(task, user, files, after=None)` runs sites.drivers.drive in a fresh browser context; returns
    (epoch time it started: filter the shared log with it, result of `after(page)`, run before the context closes)."""
    from sites.drivers import drive

    loop, browser = pw_browser

    def run(task: str, user: dict, files: dict | None = None,
            after: Callable[[Any], Awaitable[Any]] | None = None) -> tuple[float, Any]:
        async def go() -> Any:
            context = await browser.new_context()
            try:
                page = await context.new_page()
                page.set_default_timeout(30_000)
                await drive(task, page, sites.urls, user, files)
                return await after(page) if after else None
            finally:
                await context.close()

        start = time.time()
        return start, loop.run_until_complete(go())

    return run
