"""Where runs execute: local child processes (`--executor local`, the default) or Ray tasks (`--executor ray`).

Both take a Job and give back a ChildResult; the runner (scheduling, resume, retries, judging, progress) is the same
for both. Ray: each run is one task requesting one unit of the custom resource `browser`, so a node runs as many runs
at once as it declares (`ray start --resources '{"browser": 2}'`); -j caps how many are in flight. The task runs the
same `clawrec run` child (with the same deadline) on the worker, writing into DIR: DIR must be a path every node sees
(a shared file system; checked before the first run, shared_dir.py); the runner then judges from there.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from pathlib import Path
from typing import Any, Callable, Protocol

from clawrec.bench.child import STOP_WAIT_S, ChildResult, Job, run_async, run_sync
from clawrec.bench.shared_dir import check_shared
from clawrec.errors import UsageError

BROWSER_RESOURCE = "browser"


class Executor(Protocol):
    name: str

    async def run(self, job: Job) -> ChildResult: ...

    def close(self) -> None: ...


class LocalExecutor:
    """Children of this process; `stop_signal()` is what a run gets when the bench stops (the bench's own signal)."""

    name = "local"

    def __init__(self, stop_signal: Callable[[], int] = lambda: signal.SIGTERM) -> None:
        self.stop_signal = stop_signal

    async def run(self, job: Job) -> ChildResult:
        return await run_async(job, self.stop_signal)

    def close(self) -> None:
        pass


def _ray_task(job: dict[str, Any]) -> dict[str, Any]:
    """Runs on a Ray worker: the child with its deadline; returns the result as plain data."""
    import dataclasses
    import sys

    import ray

    job = {**job, "argv": [sys.executable, *job["argv"][1:]]}  # this node's Python (same clawrec install)
    result = run_sync(Job(**job))
    result.node = f"{result.node}:{ray.get_runtime_context().get_node_id()[:12]}"
    return dataclasses.asdict(result)


class RayExecutor:
    """Connects to a running Ray cluster (`--address`, or $RAY_ADDRESS, or a local one Ray starts itself)."""

    name = "ray"

    def __init__(self, address: str | None, root: Path) -> None:
        try:
            import ray
        except ImportError:
            raise UsageError("--executor ray needs Ray: pip install 'clawrec[ray]'") from None
        self._ray = ray
        try:
            ray.init(address=address or None, log_to_driver=False, include_dashboard=False,
                     configure_logging=False) if address else ray.init(
                log_to_driver=False, include_dashboard=False, configure_logging=False,
                resources={BROWSER_RESOURCE: 1})
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise UsageError(f"--address {address}: cannot connect to Ray: {exc}") from None
        if not ray.cluster_resources().get(BROWSER_RESOURCE):
            ray.shutdown()
            raise UsageError(f"the Ray cluster at {address or 'local'} declares no `{BROWSER_RESOURCE}` resource; "
                             f"start its nodes with --resources '{{\"{BROWSER_RESOURCE}\": N}}'")
        try:
            check_shared(ray, root, BROWSER_RESOURCE)
        except BaseException:
            ray.shutdown()
            raise
        self._remote = ray.remote(num_cpus=0, resources={BROWSER_RESOURCE: 1}, max_retries=0)(_ray_task)

    def capacity(self) -> int:
        return int(self._ray.cluster_resources().get(BROWSER_RESOURCE, 0))

    async def run(self, job: Job) -> ChildResult:
        ref = self._remote.remote(job.to_dict())
        try:
            data = await ref
        except asyncio.CancelledError:  # the bench is stopping: the task stops its run (SIGTERM, finalized)
            # by the stop flag in DIR (shared by every node), not Ray's gentle cancel: that is a KeyboardInterrupt,
            # lost on a worker that inherited an ignored SIGINT
            Path(job.stop_path).write_text(f"{int(signal.SIGTERM)}\n")
            await _settle(ref.future(), STOP_WAIT_S + 30)
            self._ray.cancel(ref, force=True)  # a task that did not end in time (nothing if it ended)
            raise
        except self._ray.exceptions.RayError as exc:  # the worker or node died: an infrastructure failure
            return ChildResult(exit_code=None, elapsed=0.0, error=f"ray: {type(exc).__name__}: {exc}"[:500])
        return ChildResult(**data)

    def close(self) -> None:
        self._ray.shutdown()


async def _settle(fut: Any, timeout: float) -> None:
    """Wait (at most `timeout`) for a cancelled Ray task to end; further cancellations must not cut the wait short."""
    waiter = asyncio.wrap_future(fut)
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not waiter.done() and loop.time() < end:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait({waiter}, timeout=end - loop.time())
    if waiter.done() and not waiter.cancelled():
        waiter.exception()  # retrieved: a cancelled task's TaskCancelledError is expected


def make_executor(name: str, address: str | None, root: Path,
                  stop_signal: Callable[[], int] = lambda: signal.SIGTERM) -> Executor:
    if name == "ray":
        return RayExecutor(address, root)
    if address:
        raise UsageError("--address is for --executor ray")
    return LocalExecutor(stop_signal)
