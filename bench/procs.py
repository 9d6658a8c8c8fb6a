"""What a process tree costs, read from /proc while it runs: CPU per kind of process, memory, and what is left after.

Why a sampler of our own (not psutil): three /proc files per process are all it needs, and the classes are
clawrec's own (a `clawrec run` and its Chromium, Xvfb, ffmpeg and agent). CPU of a process that ends between two
samples is counted up to its last sample (the sampler's period bounds the loss; the bench's total CPU comes from
getrusage, exact). Memory is the system's (MemTotal - MemAvailable above the level before), and the tree's
proportional set size (PSS: shared pages split, so Chromium's processes are not counted many times over).
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

TICK = os.sysconf("SC_CLK_TCK")
KINDS = ("bench", "clawrec", "chromium", "xvfb", "ffmpeg", "agent")


def kind_of(cmdline: bytes) -> str:
    """Which part of a run a process is (Chromium rewrites its cmdline into one space-joined string)."""
    head = cmdline.split(b"\0", 1)[0].split(b" ", 1)[0]
    name = head.rsplit(b"/", 1)[-1]
    if name.startswith(b"chromium") or name == b"chrome":
        return "chromium"
    if name == b"Xvfb":
        return "xvfb"
    if name == b"ffmpeg":
        return "ffmpeg"
    if b"clawrec.cli\0bench" in cmdline or b"clawrec\0bench" in cmdline:
        return "bench"
    if b"clawrec.cli\0run" in cmdline or b"/clawrec\0run" in cmdline or b"clawrec.bench.child" in cmdline:
        return "clawrec"
    return "agent"


def _read(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return None


def tree(root: int) -> dict[int, str]:
    """pid -> kind for `root` and every descendant now alive."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (stat := _read(f"/proc/{entry}/stat")):
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    children: dict[int, list[int]] = {}
    for pid, ppid in parents.items():
        children.setdefault(ppid, []).append(pid)
    out: dict[int, str] = {}
    todo = [root]
    while todo:
        pid = todo.pop()
        if pid in out or pid not in parents:
            continue
        try:
            out[pid] = kind_of(Path(f"/proc/{pid}/cmdline").read_bytes())
        except OSError:
            continue
        todo += children.get(pid, [])
    return out


def mem_available_kb() -> int:
    for line in (_read("/proc/meminfo") or "").splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1])
    return 0


def cpu_times() -> tuple[int, int]:
    """The machine's (busy, total) CPU ticks so far, all cores (/proc/stat): what a level of the scale bench used
    of the whole machine, short-lived processes the sampler never saw included."""
    fields = [int(x) for x in ((_read("/proc/stat") or "cpu 0").splitlines()[0].split()[1:])]
    idle = sum(fields[3:5])  # idle + iowait
    total = sum(fields[:8])  # guest time is already counted in user
    return total - idle, total


class Sampler:
    """Samples the tree of `root` every `period` s in a thread until stop(): CPU per kind, memory peak and mean."""

    def __init__(self, root: int, period: float = 0.5, pss_every: int = 4) -> None:
        self.root, self.period, self.pss_every = root, period, pss_every
        self.ticks: dict[int, tuple[str, int]] = {}  # pid -> (kind, utime+stime ticks at its last sample)
        self.used_kb: list[int] = []
        self.pss_kb: list[int] = []
        self.procs_peak = 0
        self.base_kb = mem_available_kb()
        self.cpu_start = cpu_times()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="bench-sampler", daemon=True)

    def start(self) -> "Sampler":
        self._thread.start()
        return self

    def stop(self) -> dict[str, Any]:
        self._stop.set()
        self._thread.join()
        cpu = {k: 0.0 for k in KINDS}
        for kind, ticks in self.ticks.values():
            cpu[kind] += ticks / TICK
        busy, total = (b - a for a, b in zip(self.cpu_start, cpu_times()))
        return {"cpu_s": {k: round(v, 2) for k, v in cpu.items()}, "machine_busy": round(busy / max(1, total), 3),
                "mem_used_peak_mb": round(max(self.used_kb, default=0) / 1024),
                "mem_used_mean_mb": round(sum(self.used_kb) / max(1, len(self.used_kb)) / 1024),
                "pss_peak_mb": round(max(self.pss_kb, default=0) / 1024),
                "processes_peak": self.procs_peak, "samples": len(self.used_kb)}

    def _loop(self) -> None:
        n = 0
        while not self._stop.is_set():
            procs = tree(self.root)
            self.procs_peak = max(self.procs_peak, len(procs))
            for pid, kind in procs.items():
                stat = _read(f"/proc/{pid}/stat")
                if stat:
                    fields = stat.rsplit(")", 1)[1].split()
                    self.ticks[pid] = (kind, int(fields[11]) + int(fields[12]))
            self.used_kb.append(max(0, self.base_kb - mem_available_kb()))
            if n % self.pss_every == 0:
                total = 0
                for pid in procs:
                    for line in (_read(f"/proc/{pid}/smaps_rollup") or "").splitlines():
                        if line.startswith("Pss:"):
                            total += int(line.split()[1])
                            break
                self.pss_kb.append(total)
            n += 1
            self._stop.wait(self.period)


def leftovers(prefixes: tuple[str, ...] = ("clawrec-", "org.chromium.")) -> dict[str, int]:
    """What runs leave on the machine: temp folders by prefix, shared memory files, our processes."""
    tmp = Path(os.environ.get("TMPDIR") or "/tmp")
    out = {f"tmp:{p}": sum(1 for _ in tmp.glob(f"{p}*")) for p in prefixes}
    out["dev_shm"] = sum(1 for _ in Path("/dev/shm").iterdir()) if Path("/dev/shm").is_dir() else 0
    kinds = [kind_of(Path(f"/proc/{e}/cmdline").read_bytes()) for e in os.listdir("/proc")
             if e.isdigit() and os.path.exists(f"/proc/{e}/cmdline")]
    out.update({f"procs:{k}": kinds.count(k) for k in ("chromium", "xvfb", "ffmpeg")})
    out["fds_self"] = len(os.listdir("/proc/self/fd"))
    return out
