"""Ending an agent's process group: the one way clawrec stops a program it started (by PID, never by name)."""

from __future__ import annotations

import asyncio
import ctypes
import os
import signal
from collections.abc import Awaitable, Callable
from typing import Any


def new_group_dying_with_parent() -> None:
    """preexec_fn: a new process group (ended as one), SIGKILLed if clawrec dies first (never an orphan driving
    the browser)."""
    os.setpgrp()
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


async def end_group(pid: int, exited: Callable[[], Awaitable[Any]], grace: float) -> None:
    """SIGTERM the group led by `pid` (a moment to flush), SIGKILL it after `grace` seconds, and SIGKILL once more
    for children left in the group after the leader exited. `exited()` waits for the leader."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        signal_group(pid, sig)
        try:
            await asyncio.wait_for(exited(), wait)
            break
        except asyncio.TimeoutError:
            continue
    signal_group(pid, signal.SIGKILL)
