"""A separate tiny process that kills the browser when the interceptor process dies, even by SIGKILL.

Why: PDEATHSIG only covers a browser we launched ourselves; `clawrec intercept --browser URL` attaches to someone
else's. The interceptor holds the write end of our stdin; the kernel closes it when the interceptor dies, so EOF
without the word `disarm` means "kill the browser now". Lines `group PID STARTTIME` name process groups (an agent
program and everything it started) killed with the browser, so no agent outlives clawrec. Lines `file PATH` name
files or directories that must not outlive the interceptor (the agent's task file, an agent's private state
directory: secrets in clear): removed at EOF, disarmed or not (after the groups are killed; a directory with all it
holds).
Usage: python -m interceptor.watchdog PID STARTTIME
"""

from __future__ import annotations

import os
import signal
import sys


def start_time(pid: int) -> str:
    """Field 22 of /proc/PID/stat: tells a reused PID from the browser we were armed for."""
    with open(f"/proc/{pid}/stat") as fh:
        return fh.read().rsplit(")", 1)[1].split()[19]


def kill_browser(pid: int, started: str) -> None:
    try:
        if start_time(pid) != started:
            return
        pgid = os.getpgid(pid)
        if pgid == pid and pgid != os.getpgrp():
            os.killpg(pid, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)
    except (OSError, IndexError):
        pass


def kill_group(pgid: int, started: str) -> None:
    """SIGKILL the process group `pgid` (led by a process that started at `started`), also when its leader is
    already gone (a shell killed by PDEATHSIG and reaped) but members remain: a process of that group that started
    after the leader proves the id was not reused."""
    if _group_members(pgid, int(started)):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass


def _group_members(pgid: int, started: int) -> bool:
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and int(fields[19]) >= started:
            return True
    return False


def groups_in(data: bytes) -> list[tuple[int, str]]:
    out = []
    for line in data.decode(errors="replace").splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "group" and parts[1].isdigit():
            out.append((int(parts[1]), parts[2]))
    return out


def files_in(data: bytes) -> list[str]:
    return [line[5:] for line in data.decode(errors="replace").splitlines() if line.startswith("file /")]


def remove_files(paths: list[str]) -> None:
    for path in paths:
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                import shutil  # only when a directory was named: the watchdog starts on every run

                shutil.rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)
        except OSError:
            pass


def main() -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # a terminal Ctrl-C must not disarm us
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    pid, started = int(sys.argv[1]), sys.argv[2]
    data = b""
    while True:
        chunk = os.read(0, 64)
        if not chunk:
            break
        data += chunk
    if "disarm" not in data.decode(errors="replace").splitlines():  # a line of its own (a path may hold the word)
        kill_browser(pid, started)
        for group, group_started in groups_in(data):
            kill_group(group, group_started)
    remove_files(files_in(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
