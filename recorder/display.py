"""A private Xvfb display per run.

An existing display (a person watching the browser: `use_display(":0")`) is used as is and never stopped.

Why -displayfd: Xvfb itself picks the first free display number (it owns the /tmp/.X<N>-lock protocol), so parallel
runs never race for the same :N, and the number it writes on the pipe doubles as the "ready" signal. The server is
started in its own process group with PR_SET_PDEATHSIG so it dies with clawrec, and it is stopped by PID only.
"""

from __future__ import annotations

import ctypes
import os
import re
import select
import shutil
import signal
import socket
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
    """A display: our own Xvfb (`process` set), or an existing one (`process` None: not ours to stop).
    `name` is the DISPLAY value (":N")."""

    process: subprocess.Popen | None
    number: int
    size: tuple[int, int]

    @property
    def name(self) -> str:
        return f":{self.number}"

    @property
    def owned(self) -> bool:
        return self.process is not None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def alive(self) -> bool:
        return self.process.poll() is None if self.process is not None else _x_answers(self.number)

    def stop(self, grace: float = 2.0) -> None:
        """SIGTERM by PID, then SIGKILL if it lingers. An existing display is left alone."""
        if self.process is not None and self.process.poll() is None:
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


def _x_answers(number: int) -> bool:
    """A local X server listens on display `number` (its unix socket, filesystem or abstract, accepts)."""
    for address in (f"/tmp/.X11-unix/X{number}", f"\0/tmp/.X11-unix/X{number}"):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(2)
            try:
                sock.connect(address)
                return True
            except OSError:
                continue
    return False


def use_display(name: str, size: tuple[int, int] = (1280, 800)) -> Display:
    """An existing local display (":N" or ":N.S") the browser opens on and the video grabs; never stopped by us."""
    m = re.fullmatch(r"(?:unix)?:(\d+)(?:\.\d+)?", name.strip())
    if m is None:
        raise DisplayError(f"display {name!r}: expected a local X display such as :0")
    number = int(m.group(1))
    if not _x_answers(number):
        raise DisplayError(f"display {name}: no X server answers on /tmp/.X11-unix/X{number}")
    return Display(process=None, number=number, size=size)
