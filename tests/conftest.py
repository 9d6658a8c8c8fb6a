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
