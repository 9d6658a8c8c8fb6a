"""A private Xvfb display per run.

Why -displayfd: Xvfb itself picks the first free display number (it owns the /tmp/.X<N>-lock protocol), so parallel
runs never race for the same :N, and the number it writes on the pipe doubles as the "ready" signal. The server is
started in its own process group with PR_SET_PDEATHSIG so it dies with clawrec, and it is stopped by PID only.
"""

from __future__ import annotations

import ctypes
import os
import select
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass


class DisplayError(RuntimeError):
    """Xvfb is missing or did not come up."""


def _own_group_die_with_parent() -> None:
    os.setpgrp()
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


@dataclass
class Display:
    """A running Xvfb: `name` is the DISPLAY value (":N")."""

    process: subprocess.Popen
    number: int
    size: tuple[int, int]

    @property
    def name(self) -> str:
        return f":{self.number}"

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self, grace: float = 2.0) -> None:
        """SIGTERM by PID, then SIGKILL if it lingers."""
        if self.process.poll() is None:
            try:
                self.process.terminate()
                self.process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
            except ProcessLookupError:
                pass


def start_display(size: tuple[int, int] = (1280, 800), depth: int = 24, timeout: float = 10.0) -> Display:
    """Start Xvfb on a free display number and return once it accepts clients."""
    binary = shutil.which("Xvfb")
    if not binary:
        raise DisplayError("Xvfb not found; install it with: make setup (apt-get install xvfb)")
    read_fd, write_fd = os.pipe()
    try:
        proc = subprocess.Popen(
            [binary, "-displayfd", str(write_fd), "-screen", "0", f"{size[0]}x{size[1]}x{depth}",
             "-nolisten", "tcp", "-noreset"],
            pass_fds=(write_fd,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=_own_group_die_with_parent)
    finally:
        os.close(write_fd)
    buf = b""
    deadline = time.monotonic() + timeout
    try:
        while not buf.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0:
                raise DisplayError(f"Xvfb did not report a display within {timeout:.0f}s")
            ready, _, _ = select.select([read_fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(read_fd, 64)
            if not chunk:
                raise DisplayError(f"Xvfb exited with code {proc.wait()} before reporting a display")
            buf += chunk
    except BaseException:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        raise
    finally:
        os.close(read_fd)
    return Display(process=proc, number=int(buf.strip()), size=size)
