"""Waiting in tests for a condition, never for a fixed time (a fixed sleep fails under load or wastes the budget)."""

from __future__ import annotations

import time
from typing import Any, Callable


def wait_for(check: Callable[[], Any], what: str, timeout: float = 60, every: float = 0.1) -> Any:
    """The first true value of `check()`, polled every `every` seconds; AssertionError naming `what` at `timeout`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := check():
            return value
        time.sleep(every)
    raise AssertionError(f"timed out waiting for {what}")
