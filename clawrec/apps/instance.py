"""One running instance of an app: a claimed slot, its own copy of the snapshot, the launcher on 127.0.0.1:0.

Why slots: `clawrec bench -j N` runs N `clawrec run` processes at once; each claims the first free slot of the app
(.tools/apps/NAME/instances/K, an exclusive flock held for the run's life, released by the kernel even on kill -9),
so N runs get N instances with N data folders and N ports (the pool). The launcher (apps/_django/serve.py, in the
app's venv) copies the snapshot into the slot's data folder before it listens, answers the control port's
POST /reset in place (≈ ms: no restart) and exits with its parent.
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import IO, Any

from clawrec.apps.corpus import CORPUS, AppDef
from clawrec.errors import ClawrecError

POOL_ENV = "CLAWREC_APP_POOL"  # most instances of one app at once (slots); default 16
START_TIMEOUT = 60.0


class AppFailed(ClawrecError):
    """The app is not installed, no slot is free, or its server did not start: one line."""


class AppInstance:
    def __init__(self, app: AppDef, slot_name: str | None = None) -> None:
        self.app = app
        self.slot_name = slot_name
        self.slot: Path | None = None
        self.lock: IO[str] | None = None
        self.proc: subprocess.Popen | None = None
        self.url = ""
        self.control = ""
        self.start_s = 0.0

    @property
    def data(self) -> Path:
        assert self.slot is not None
        return self.slot / "data"

    @property
    def database(self) -> Path:
        return self.data / self.app.database

    def _claim(self) -> None:
        if not self.app.installed():
            raise AppFailed(f"app '{self.app.name}' is not installed (or its install is out of date): run `make apps`")
        base = self.app.root / "instances"
        base.mkdir(parents=True, exist_ok=True)
        names = [self.slot_name] if self.slot_name else [str(k) for k in range(int(os.environ.get(POOL_ENV, 16)))]
        for name in names:
            slot = base / name
            slot.mkdir(exist_ok=True)
            fh = (slot / "lock").open("a+")
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                fh.close()
                continue
            self.slot, self.lock = slot, fh
            return
        raise AppFailed(f"app '{self.app.name}': all {len(names)} instance slot(s) in {base} are in use "
                        f"(raise ${POOL_ENV})")

    def start(self) -> str:
        """Claim a slot, start the server on a fresh copy of the snapshot; the base URL (ending in /)."""
        t0 = time.monotonic()
        self._claim()
        assert self.slot is not None
        log = (self.slot / "server.log").open("w")
        cmd = [str(self.app.python_bin), str(CORPUS / "_django" / "serve.py"), "--project", str(self.app.source),
               "--settings", self.app.settings, "--data", str(self.data), "--snapshot", str(self.app.snapshot),
               "--warm", self.app.start_path]
        if self.app.kind == "command":  # its own processes, restarted on reset (apps/_command/serve.py)
            cmd = [sys.executable, str(CORPUS / "_command" / "serve.py"), "--manifest", str(self.app.source / "app.json"),
                   "--data", str(self.data), "--snapshot", str(self.app.snapshot), "--venv", str(self.app.venv)]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL, text=True,
                                     cwd=self.app.source, start_new_session=True)
        log.close()
        assert self.proc.stdout is not None
        readable, _, _ = select.select([self.proc.stdout], [], [], START_TIMEOUT)
        line = self.proc.stdout.readline() if readable else ""  # the launcher's one ready line (EOF: it died)
        try:
            ready: dict[str, Any] = json.loads(line)
            self.url, self.control = str(ready["url"]), str(ready["control"])
        except (ValueError, KeyError, TypeError):
            self.stop()
            tail = (self.slot / "server.log").read_text(errors="replace").strip().splitlines()[-1:]
            raise AppFailed(f"app '{self.app.name}': the server did not start ({tail[0] if tail else 'no output'}; "
                            f"see {self.slot / 'server.log'})") from None
        self.start_s = time.monotonic() - t0
        (self.slot / "state.json").write_text(json.dumps({"url": self.url, "control": self.control,
                                                          "pid": self.proc.pid}) + "\n")
        return self.url

    def reset(self) -> float:
        """Back to the snapshot, in place (the server holds requests meanwhile); seconds it took."""
        return reset_at(self.control, self.app.name)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        if self.proc is not None and self.proc.stdout is not None:
            self.proc.stdout.close()
        self.proc = None
        if self.slot is not None:
            (self.slot / "state.json").unlink(missing_ok=True)
        if self.lock is not None:
            self.lock.close()  # releases the flock
            self.lock = None


def reset_at(control: str, name: str) -> float:
    """POST /reset to a running instance's control port; seconds the reset took (AppFailed when it failed)."""
    req = urllib.request.Request(control + "reset", data=b"", method="POST")
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return float(json.loads(resp.read())["reset_s"])
    except (OSError, ValueError, KeyError) as exc:
        raise AppFailed(f"app '{name}': reset failed: {exc}") from None
