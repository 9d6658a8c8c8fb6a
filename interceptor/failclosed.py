"""Fail closed: when the interceptor loses the browser or breaks, the browser dies at once.

Chrome continues every paused request when the DevTools client that paused it goes away, so a lost interceptor with
a live browser would let the terminal submission leave. Three layers:
1. in process: the CDP connection dropped (not by `close()`) or a handler crashed -> `trip()` kills the browser,
   through the caller's `kill_browser` (the pipeline's Browser.kill) or by the PID learnt at attach
   (SystemInfo.getProcessInfo);
2. the interceptor process dies (even SIGKILL) -> the watchdog process (interceptor/watchdog.py) sees its stdin hit
   EOF and kills the browser by PID. The watchdog also holds a duplicate of the CDP socket, so Chrome sees no
   disconnect (and continues nothing) before it is killed: without that, a SIGKILLed interceptor leaked paused
   terminal requests in 1 of ~10 runs (measured), because Chrome's detach raced the watchdog's kill;
3. a browser launched by recorder.browser also dies with its launcher (PDEATHSIG).
Process groups given to `watch_group` (the agent program, in its own group) die with the browser on every path
(the watchdog has its own process group, so one SIGKILL to clawrec's group, a bench's deadline, kills clawrec and
leaves the watchdog to kill the browser and the agent);
files and directories given to `watch_file` (the agent's task file, OpenClaw's private state: secrets in clear) are
removed by the watchdog when it ends, so they do not outlive a SIGKILLed clawrec either.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Callable

from interceptor import watchdog
from interceptor.cdp import Session

log = logging.getLogger("clawrec.failclosed")


async def browser_pid(root: Session) -> int | None:
    """The browser process id, asked from the browser itself (None when it will not say)."""
    try:
        info = await root.send("SystemInfo.getProcessInfo")
    except Exception as exc:
        log.warning("SystemInfo.getProcessInfo failed: %s", exc)
        return None
    for proc in info.get("processInfo", []):
        if proc.get("type") == "browser":
            return int(proc["id"])
    return None


class FailClosed:
    """Arms the kill paths for one attached browser; `trip()` kills, `disarm()` stands down after a clean close."""

    def __init__(self, kill_browser: Callable[[], None] | None = None, use_watchdog: bool = True) -> None:
        self.kill_browser = kill_browser
        self.use_watchdog = use_watchdog
        self.pid: int | None = None
        self.tripped: str | None = None
        self.groups: list[tuple[int, str]] = []  # (leader pid, its start time): killed with the browser
        self._watchdog: subprocess.Popen | None = None

    async def arm(self, root: Session, socket_fd: int | None = None) -> None:
        """Learn the browser PID and start the watchdog (holding `socket_fd`, the CDP connection's socket)."""
        self.pid = await browser_pid(root)
        if self.pid is None and self.kill_browser is None:
            raise RuntimeError("cannot fail closed: the browser PID is unknown (SystemInfo.getProcessInfo) and no "
                               "kill_browser callable was given")
        if self.use_watchdog and self.pid is not None and Path(f"/proc/{self.pid}").exists():
            self._watchdog = subprocess.Popen(
                [sys.executable, "-I", "-S", watchdog.__file__, str(self.pid), watchdog.start_time(self.pid)],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True,
                pass_fds=(socket_fd,) if socket_fd is not None else (),
                process_group=0)  # its own group: a killpg of clawrec's group (a bench's deadline) must spare it

    def watch_group(self, pid: int) -> None:
        """Kill the process group led by `pid` (an agent) whenever the browser is killed, also by the watchdog
        after a SIGKILL of this process."""
        try:
            entry = (pid, watchdog.start_time(pid))
        except (OSError, IndexError):
            return  # already gone
        self.groups.append(entry)
        self._tell(f"group {entry[0]} {entry[1]}\n")

    def watch_file(self, path: str | Path) -> bool:
        """Have the watchdog remove `path` (a file, or a directory with all it holds) when it ends: at once if this
        process dies (even by SIGKILL), else when the interceptor disarms or trips. False: no watchdog runs (the
        caller must remove it)."""
        return self._tell(f"file {os.path.abspath(path)}\n")

    def _tell(self, line: str) -> bool:
        if self._watchdog is None or self._watchdog.stdin is None or "\n" in line[:-1]:
            return False
        try:
            self._watchdog.stdin.write(line.encode())
            self._watchdog.stdin.flush()
        except OSError:
            return False
        return True

    def trip(self, reason: str) -> None:
        """Kill the browser now (idempotent)."""
        if self.tripped is not None:
            return
        self.tripped = reason
        log.error("fail closed: %s; killing the browser", reason)
        try:
            if self.kill_browser is not None:
                self.kill_browser()
            elif self.pid is not None:
                started = watchdog.start_time(self.pid)
                watchdog.kill_browser(self.pid, started)
        except Exception:
            log.exception("killing the browser failed")
            if self.pid is not None:
                try:
                    os.kill(self.pid, signal.SIGKILL)
                except OSError:
                    pass
        for pid, started in self.groups:
            watchdog.kill_group(pid, started)
        self._stop_watchdog(disarm=False)

    def disarm(self) -> None:
        self._stop_watchdog(disarm=True)

    def _stop_watchdog(self, disarm: bool) -> None:
        wd, self._watchdog = self._watchdog, None
        if wd is None:
            return
        try:
            if disarm:
                wd.stdin.write(b"disarm\n")
            wd.stdin.close()
        except OSError:
            pass
        try:
            wd.wait(timeout=5)
        except subprocess.TimeoutExpired:
            wd.kill()
