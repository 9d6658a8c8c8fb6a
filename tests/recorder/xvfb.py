"""An X display of the test's own, standing in for a person's screen: an Xvfb started and killed by PID."""

from __future__ import annotations

import os
import shutil
import subprocess
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def own_xvfb(size: tuple[int, int] = (1280, 800)) -> Iterator[tuple[subprocess.Popen, str]]:
    """Yield (process, ":N"). `-displayfd`: Xvfb picks a free number and writes it once it accepts clients;
    `-br`: a black root window, so that anything painted on it shows."""
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen([shutil.which("Xvfb") or "Xvfb", "-displayfd", str(write_fd), "-screen", "0",
                             f"{size[0]}x{size[1]}x24", "-br", "-nolisten", "tcp"], pass_fds=(write_fd,),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_fd)
    try:
        with os.fdopen(read_fd, "rb") as pipe:
            line = pipe.readline().strip()
        assert line, f"Xvfb exited with code {proc.wait(timeout=10)} before reporting a display"
        yield proc, f":{int(line)}"
    finally:
        proc.kill()
        proc.wait(timeout=10)
