"""One temporary folder per `clawrec run`/`record` process, and the sweep of those whose process is gone.

Why: a run makes private temporary files in many places (the recorder's folder, the served sites', the task file the
agent reads, Chromium's profile, an agent's private home). A run killed by SIGKILL cannot remove them, and the task
file holds the user's personal details: a soak of a few thousand runs with faults left hundreds behind in /tmp.
Everything the process and its children make through `tempfile` or $TMPDIR goes into `clawrec-run-PID-XXXX`, removed
when the run ends; the next run sweeps the folders of processes that no longer exist.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterator

from rundir.lock import process_start

PREFIX = "clawrec-run-"


def sweep(root: Path) -> list[Path]:
    """Remove the scratch folders under `root` whose owning process is gone; returns them."""
    gone = []
    for folder in root.glob(f"{PREFIX}*"):
        pid = folder.name[len(PREFIX):].split("-", 1)[0]
        if pid.isdigit() and process_start(int(pid)) is None:
            shutil.rmtree(folder, ignore_errors=True)
            gone.append(folder)
    return gone


@contextlib.contextmanager
def run_scratch() -> Iterator[Path]:
    """For a process that runs one run: tempfile and $TMPDIR point into a folder of its own while it lasts."""
    root = Path(tempfile.gettempdir())
    sweep(root)
    folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=root))
    saved_dir, saved_env = tempfile.tempdir, os.environ.get("TMPDIR")
    tempfile.tempdir = str(folder)
    os.environ["TMPDIR"] = str(folder)
    try:
        yield folder
    finally:
        tempfile.tempdir = saved_dir
        if saved_env is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = saved_env
        shutil.rmtree(folder, ignore_errors=True)
