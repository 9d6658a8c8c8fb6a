"""Shared fixtures. Browser tests fail loudly (never skip) when Chromium is missing."""

from __future__ import annotations

import pytest

from recorder.browser import find_chromium, launch_browser


@pytest.fixture
def chromium_path() -> str:
    return find_chromium()  # raises BrowserLaunchError: a loud failure, not a skip


@pytest.fixture
def browser(chromium_path):
    """A headless Chromium on a random loopback port, killed at the end."""
    b = launch_browser(headless=True)
    yield b
    b.close()


@pytest.fixture(scope="session")
def sites(tmp_path_factory):
    """All local sites (sites/server.py) for the whole session: `.urls`, `.records()`, `.wait_for(pred)`.

    Shared by every test: filter records by time (`r["t"] >= start`) or by your own payload, never `clear()`.
    """
    from sites.server import serve_sites

    with serve_sites(log_path=tmp_path_factory.mktemp("sites") / "sites.jsonl") as server:
        yield server
