"""Before a Ray bench starts: every node that runs runs must see the bench folder and be able to write in it.

Why: Ray workers write run directories straight into DIR (nothing is shipped back), so DIR must be one shared path.
A node that sees another folder at that path (not shared) would record runs the bench never finds, and one that
cannot write there would fail every run it gets; both are one clear line before any run starts. The driver writes a
token file into DIR and a probe task pinned to each node reads it back and writes a file of its own; a node that
does not answer within PROBE_WAIT_S is named too (never a hang).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

from clawrec.errors import UsageError

PROBE_FILE = ".ray-probe"
PROBE_WAIT_S = 180.0  # a worker process starting on a loaded node takes seconds; 10x that and more


def _probe(root: str, token: str) -> str:
    """Runs on a node: '' when it sees the driver's token in DIR and can write there, else why not."""
    path = Path(root) / PROBE_FILE
    try:
        seen = path.read_text()
    except OSError as exc:
        return f"does not see {path} ({exc.strerror or exc})"
    if seen != token:
        return f"sees another folder at {root} (not the bench's)"
    mine = Path(root) / f"{PROBE_FILE}.{os.getpid()}.{secrets.token_hex(4)}"
    try:
        mine.write_text(token)
        mine.unlink()
    except OSError as exc:
        return f"cannot write in {root} ({exc.strerror or exc})"
    return ""


def check_shared(ray: Any, root: Path, resource: str) -> None:
    """Raise UsageError naming the first node (of those declaring `resource`) that cannot use `root`."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    nodes = [n for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get(resource)]
    token = secrets.token_hex(16)
    probe_file = root / PROBE_FILE
    probe_file.write_text(token)
    try:
        probe = ray.remote(num_cpus=0, max_retries=0)(_probe)
        refs = {probe.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n["NodeID"], soft=False))
                .remote(str(root), token): n for n in nodes}
        ready, late = ray.wait(list(refs), num_returns=len(refs), timeout=PROBE_WAIT_S)
        for ref in ready:
            try:
                why = ray.get(ref)
            except ray.exceptions.RayError as exc:
                why = f"the probe task failed ({type(exc).__name__})"
            if why:
                raise UsageError(_message(root, refs[ref], why))
        if late:
            raise UsageError(_message(root, refs[late[0]], f"did not answer within {PROBE_WAIT_S:g} s"))
    finally:
        probe_file.unlink(missing_ok=True)


def _message(root: Path, node: dict[str, Any], why: str) -> str:
    return (f"--out {root}: Ray node {node.get('NodeManagerAddress')} ({node.get('NodeManagerHostname')}) {why}; "
            "with --executor ray the bench folder must be a path every node shares and can write")
