"""Stopping a run from outside (Ctrl-C, SIGTERM, SIGHUP) so that it finalizes like any other end.

Why its own module: the pipeline owns the order of a run; this owns how a signal becomes a cancellation of it (once,
remembered for the manifest's stop reason, previous handlers restored, an ignored signal left ignored)."""

from __future__ import annotations

import asyncio
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clawrec.errors import ClawrecError

# Ctrl-C, a service manager, a closed terminal: each a graceful stop. SIGINT is handled here too, not by asyncio.run:
# asyncio.run's handler only cancels the main task once, and a cancellation can be swallowed on the way (Python
# 3.11's wait_for returns the result of an inner future that completed in the same loop step), so the stop is also
# remembered in `RunStop.requested`, which the pipeline checks between phases and waits on while the agent works.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class RunStopped(ClawrecError):
    """The run was stopped from outside (Ctrl-C, SIGTERM, SIGHUP) once its run folder existed; every layer and the
    manifest are finalized. Exit 128 + the signal's number, as a shell reports a process ended by it."""

    def __init__(self, run_dir: Path, signum: int) -> None:
        super().__init__("interrupted" if signum == signal.SIGINT else
                         f"terminated ({signal.Signals(signum).name})")
        self.run_dir, self.signum = run_dir, signum
        self.exit_code = 128 + signum


@dataclass
class RunStop:
    """The signal that stopped the run (None: none yet), the Recording to tell (its start() may be what the
    cancellation interrupts), and `requested`: set with the signal and never cleared (a sticky stop)."""
    signum: int | None = None
    rec: Any = None
    run_dir: Path | None = None  # set once the run folder exists (a stop before it leaves nothing to finalize)
    requested: asyncio.Event | None = None

    @property
    def reason(self) -> str:
        return "interrupted" if self.signum in (None, signal.SIGINT) else \
            f"terminated ({signal.Signals(self.signum).name})"

    def check(self) -> None:
        """Raise CancelledError if a stop was requested (a phase boundary: the cancellation may have been lost)."""
        if self.signum is not None:
            raise asyncio.CancelledError(self.reason)

    def on_signal(self, signum: int, main: asyncio.Task) -> None:
        if self.signum is not None:  # once: a second signal must not cut the finalization short
            return
        self.signum = signum
        if self.requested is not None:
            self.requested.set()
        if self.rec is not None:
            self.rec.interrupt_reason = self.reason
        main.cancel()


async def stoppable(stop: RunStop, work: Any) -> Any:
    """Run `work` with SIGINT/SIGTERM/SIGHUP turned into a cancellation of it (every layer is finalized) and into
    `stop.requested`. A signal ignored when we started (nohup; a background job of a non-interactive shell ignores
    SIGINT) stays ignored, and the previous handlers are back afterwards."""
    loop = asyncio.get_running_loop()
    main = asyncio.current_task()
    assert main is not None
    stop.requested = stop.requested or asyncio.Event()
    installed: dict[int, Any] = {}
    for sig in STOP_SIGNALS:
        old = signal.getsignal(sig)
        if old is signal.SIG_IGN:
            continue
        try:
            loop.add_signal_handler(sig, stop.on_signal, sig, main)
        except (ValueError, RuntimeError):  # not the main thread: the caller handles its signals
            continue
        installed[sig] = old
    try:
        return await work
    finally:
        for sig, old in installed.items():
            loop.remove_signal_handler(sig)
            signal.signal(sig, old if old is not None else signal.SIG_DFL)
