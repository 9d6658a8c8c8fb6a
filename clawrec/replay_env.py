"""The process-level determinism of a `--site-from` replay: Chromium's wall clock starts at the archive's start
time, and its renderers' OS random source (crypto.getRandomValues, crypto.randomUUID) is seeded.

Why process level: nothing may run in a page (no script, no global, no patched native a detector could see:
tests/footprint). A small LD_PRELOAD shim (native/clawrec_replay.c, built by `make setup` into .tools/replay-shim/)
moves CLOCK_REALTIME for the whole browser (one offset for every process, so cookie expiries, CDP timestamps and
pages agree) and leaves the monotonic clocks alone (timers wait real time). Its seeded getrandom() is switched on
only in renderer processes, by `--renderer-cmd-prefix=env CLAWREC_RANDOM_SEED=N` (renderers are then started
without the zygote); the browser process keeps real randomness. `UseBoringSSLForRandBytes` is turned off so that
every base::RandBytes reaches getrandom() (with it on, BoringSSL's per-thread generator gave a page values that
depended on how many internal tokens the thread drew first: measured).
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SHIM = ROOT / ".tools" / "replay-shim" / "libclawrec_replay.so"
DISABLED_FEATURES = ["UseBoringSSLForRandBytes"]


def shim_path() -> Path | None:
    """The built shim ($CLAWREC_REPLAY_SHIM, else .tools/replay-shim/), None when `make setup` has not built it."""
    path = Path(os.environ.get("CLAWREC_REPLAY_SHIM") or SHIM)
    return path if path.is_file() else None


@dataclass
class ReplayEnv:
    """One replay's clock and seed. `launched` is when the browser's clock is set to `start_epoch` (launch time)."""

    start_epoch: float
    seed: int
    shim: Path | None = field(default_factory=shim_path)
    launched: float = field(default_factory=time.time)

    @property
    def offset_ns(self) -> int:
        """How far the browser's wall clock is moved: archive start minus now (negative: into the past)."""
        return int(self.start_epoch * 1e9) - int(self.launched * 1e9) if self.start_epoch else 0

    @property
    def shift(self) -> float:
        """Seconds to subtract from a browser timestamp to put it on the real clock (0 without the shim)."""
        return self.offset_ns / 1e9 if self.shim is not None else 0.0

    def env(self) -> dict[str, str]:
        """The browser's environment additions: the shim, and the clock offset for every process."""
        if self.shim is None:
            return {}
        preload = " ".join(x for x in (str(self.shim), os.environ.get("LD_PRELOAD", "")) if x)
        return {"LD_PRELOAD": preload, "CLAWREC_CLOCK_OFFSET_NS": str(self.offset_ns)}

    def flags(self) -> list[str]:
        """Chromium flags: renderers (only they) get the random seed; base::RandBytes on getrandom()."""
        if self.shim is None:
            return []
        env_bin = shutil.which("env") or "/usr/bin/env"
        return [f"--renderer-cmd-prefix={env_bin} CLAWREC_RANDOM_SEED={self.seed}",
                "--disable-features=" + ",".join(DISABLED_FEATURES)]

    def facts(self) -> dict[str, Any]:
        """What this replay fixed, for the manifest's `site.determinism`."""
        shim = self.shim is not None
        return {"clock_start_epoch": self.start_epoch if shim else None,
                "clock_offset_s": round(self.offset_ns / 1e9, 3) if shim else 0.0,
                "math_random_seed": self.seed, "crypto_seed": self.seed if shim else None,
                "shim": str(self.shim) if shim else None,
                **({} if shim else {"missing": "replay shim not built (make setup): clock real, crypto unseeded"})}
