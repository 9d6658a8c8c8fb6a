"""A scripted person for `clawrec record`: drives the recorded browser over CDP (Playwright attached to it, as a
person's input would arrive: trusted clicks and typing the extension records) and answers held requests on the task
page (its real /state and /decide endpoints, as the page's buttons do), then presses Done there."""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.request
from pathlib import Path


def _ancestors(pid: int) -> set[int]:
    out = set()
    while pid > 1:
        out.add(pid)
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            break
        pid = int(stat.rsplit(")", 1)[1].split()[1])
    return out


def browser_cdp_url(record_pid: int, timeout: float = 120) -> str:
    """http://127.0.0.1:PORT of the Chromium that the `clawrec record` process `record_pid` started: the process
    below it whose command line names a profile (--user-data-dir), read from that profile's DevToolsActivePort."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            profile = next((a[len(b"--user-data-dir="):] for a in argv if a.startswith(b"--user-data-dir=")), None)
            if profile is None or b"--remote-debugging-port=0" not in argv or record_pid not in _ancestors(int(entry)):
                continue
            active = Path(profile.decode()) / "DevToolsActivePort"
            if active.is_file() and (port := active.read_text().split("\n", 1)[0].strip()):
                return f"http://127.0.0.1:{port}"
        time.sleep(0.2)
    raise AssertionError(f"no browser below clawrec record (pid {record_pid})")


class TaskPage:
    """The task page's endpoints; `answer(rule)` decides every held request on a thread: `rule(held) -> "allow" |
    "block"`; `decided` lists (id, method, url, decision)."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/") + "/"
        self.decided: list[tuple[int, str, str, str]] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _call(self, path: str, data: dict | None = None) -> dict:
        req = urllib.request.Request(self.url + path, data=None if data is None else json.dumps(data).encode(),
                                     method="GET" if data is None else "POST")
        with urllib.request.urlopen(req, timeout=30) as resp:
            return json.load(resp)

    def answer(self, rule) -> "TaskPage":
        def loop() -> None:
            while not self._stop.is_set():
                try:
                    held = self._call("state").get("held", [])
                except OSError:  # the session ended
                    return
                for h in held:
                    if any(d[0] == h["id"] for d in self.decided):
                        continue
                    decision = rule(h)
                    if self._call("decide", {"id": h["id"], "decision": decision}).get("ok"):
                        self.decided.append((h["id"], h["method"], h["url"], decision))
                time.sleep(0.1)

        self._thread = threading.Thread(target=loop, daemon=True)
        self._thread.start()
        return self

    def blocked(self) -> int:
        return sum(1 for d in self.decided if d[3] == "block")

    def done(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
        self._call("done", {})
