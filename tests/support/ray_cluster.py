"""A real two-node Ray cluster on 127.0.0.1 for the bench tests (test support, never product code).

Head (127.0.0.2) and worker (127.0.0.3) are two `ray start --block` processes, each in its own process group, each declaring
`{"browser": 1}`; every port is picked free (the defaults, 6379, 10001, 52365, …, would clash with anyone else's
cluster and between the two nodes); the dashboard is off. Stopping ends exactly the two groups we started (SIGTERM,
then SIGKILL), never `ray stop` (which ends every Ray process on the machine).
"""

from __future__ import annotations

import os
import signal
import socket
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RAY = Path(sys.executable).with_name("ray")
# Ray rewrites "127.0.0.1"/"localhost" (node and cluster addresses) into the machine's own interface address; other
# loopback addresses are kept as given: the head is 127.0.0.2, the worker 127.0.0.3, so every byte stays on loopback.
HEAD_IP, WORKER_IP = "127.0.0.2", "127.0.0.3"
READY = "Ray runtime started"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))  # free on every loopback address in practice (Ray binds them on its own)
        return s.getsockname()[1]


def node_ports() -> list[str]:
    return [f"--node-manager-port={free_port()}", f"--object-manager-port={free_port()}",
            f"--dashboard-agent-listen-port={free_port()}", f"--dashboard-agent-grpc-port={free_port()}",
            f"--runtime-env-agent-port={free_port()}", f"--metrics-export-port={free_port()}"]


class RayCluster:
    def __init__(self, tmp: Path, browsers_per_node: int = 1, worker_read_only: Path | None = None) -> None:
        """`worker_read_only`: a folder the worker node sees read-only (a bind mount in its own mount namespace,
        `unshare`, root), as a node sees a bench folder it cannot write; the head and the test see it writable."""
        self.tmp = tmp
        self.worker_read_only = worker_read_only
        # Ray's session sockets live below --temp-dir and AF_UNIX paths are capped at 107 bytes: a short folder
        self.temp_dir = tempfile.mkdtemp(prefix="clawrec-ray-", dir="/tmp")
        self.port = free_port()
        self.address = f"{HEAD_IP}:{self.port}"
        self.browsers = browsers_per_node
        self.procs: list[subprocess.Popen] = []
        self.logs: list[Path] = []

    def _wrap(self, argv: list[str]) -> list[str]:
        d = str(self.worker_read_only)
        return ["unshare", "--mount", "--propagation", "private", "sh", "-c",
                'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"', d, *argv]

    def _start(self, name: str, ip: str, args: list[str], tries: int = 3) -> None:
        """Ray gives a node 30 s (hard-coded) to register; on a machine under heavy load that can pass: try again."""
        for attempt in range(1, tries + 1):
            try:
                return self._start_once(f"{name}-{attempt}", ip, args)
            except RuntimeError:
                if attempt == tries:
                    raise
                self._end(self.procs.pop())

    def _start_once(self, name: str, ip: str, args: list[str], timeout: float = 180) -> None:
        log = self.tmp / f"ray-{name}.log"
        self.logs.append(log)
        out = open(log, "w")
        env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_DISABLE_IMPORT_WARNING": "1"}
        argv = [str(RAY), "start", "--block", f"--node-ip-address={ip}", "--num-cpus=1",
                f'--resources={{"browser": {self.browsers}}}', "--disable-usage-stats", *node_ports(), *args]
        if name.startswith("worker") and self.worker_read_only is not None:
            argv = self._wrap(argv)
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True, env=env)
        self.procs.append(proc)
        end = time.monotonic() + timeout
        while READY not in log.read_text(errors="replace"):
            if proc.poll() is not None or time.monotonic() > end:
                raise RuntimeError(f"ray {name} did not start (exit {proc.poll()}):\n{log.read_text()[-3000:]}")
            time.sleep(0.3)

    def __enter__(self) -> "RayCluster":
        try:
            self._start("head", HEAD_IP, ["--head", f"--port={self.port}", "--include-dashboard=false",
                                          f"--dashboard-port={free_port()}",
                                          f"--temp-dir={self.temp_dir}"])
            self._start("worker", WORKER_IP, [f"--address={self.address}"])
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        for proc in reversed(self.procs):
            self._end(proc)
        shutil.rmtree(self.temp_dir, ignore_errors=True)

    @staticmethod
    def _end(proc: subprocess.Popen) -> None:
        """SIGTERM the node's process group (ours, by the leader's PID), SIGKILL what is left."""
        for sig, wait in ((signal.SIGTERM, 3), (signal.SIGKILL, 10)):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                proc.wait(wait)
                break
            except subprocess.TimeoutExpired:
                continue
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # workers left in the group
        except ProcessLookupError:
            pass
