"""An agent program's stdout/stderr (and files it wrote elsewhere) into the run directory, through the redaction policy.

Why not hand the program the log files: what it prints (a task file it dumps, a password it echoes) would reach the
run directory in clear. A pipe is read by one thread per stream (never the event loop: a busy loop must not stall
the agent on a full pipe), each read is passed through `rundir.redact.StreamRedactor` and appended at once.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
from pathlib import Path

from rundir.redact import Redactor, StreamRedactor

READ_SIZE = 65536
POLL_S = 0.2  # how often a pump whose writers linger looks whether it was told to stop


class RedactedPipe:
    """A pipe whose write end goes to the program (`fd`) and whose read end is copied, redacted, to `path`."""

    def __init__(self, path: str | Path, redactor: Redactor) -> None:
        self.path = Path(path)
        self.stream = StreamRedactor(redactor)
        self._read, self.fd = os.pipe()
        os.set_inheritable(self._read, False)
        self._out = open(self.path, "ab", buffering=0)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._pump, name=f"agent-output-{self.path.name}", daemon=True)
        self._thread.start()

    def started(self) -> None:
        """The program holds its copy of the write end: close ours, so the pump sees EOF when the program ends."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def close(self, timeout: float = 2.0) -> None:
        """Copy what is left (waiting up to `timeout` s for EOF: a child that outlived the program may still hold
        the pipe), then stop. Idempotent."""
        self.started()
        self._thread.join(timeout)
        self._stop.set()
        self._thread.join()

    def _pump(self) -> None:
        try:
            while not self._stop.is_set():
                ready, _, _ = select.select([self._read], [], [], POLL_S)
                if not ready:
                    continue
                chunk = os.read(self._read, READ_SIZE)
                if not chunk:
                    break
                self._write(self.stream.feed(chunk))
            self._write(self.stream.end())
        finally:
            os.close(self._read)
            with contextlib.suppress(OSError):
                self._out.close()

    def _write(self, data: bytes) -> None:
        """Append `data`; after a failed write (disk full: the run's write guard stops the run through the other
        layers) the rest is read and dropped, so the program never blocks on a full pipe."""
        if self._out.closed:
            return
        view = memoryview(data)
        try:
            while view:
                view = view[self._out.write(view):]
        except OSError:
            with contextlib.suppress(OSError):
                self._out.close()


def copy_redacted(src: str | Path, dest: str | Path, redactor: Redactor) -> bool:
    """Copy `src` (a file an agent wrote outside the run directory: OpenClaw's log and config) to `dest` with the
    policy's secret values replaced, in bounded chunks. False when `src` cannot be read (nothing written)."""
    stream = StreamRedactor(redactor)
    try:
        with open(src, "rb") as fin, open(dest, "wb") as fout:
            while chunk := fin.read(READ_SIZE):
                fout.write(stream.feed(chunk))
            fout.write(stream.end())
    except FileNotFoundError:
        return False
    return True
