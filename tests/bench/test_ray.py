"""`--executor ray` on a real two-node Ray cluster started here on loopback (head + a second worker node, each
declaring one `browser`): the demo bench's travel task, run through Ray, gives the same results as the local
executor gave for the same runs, and runs land on both nodes. A bench folder one node cannot write is refused in one
line before any run starts (Ray workers write run directories straight into DIR: it must be shared). SIGTERM stops
a Ray bench with exit 143, its runs finalized by themselves."""

from __future__ import annotations

import json
import signal
import subprocess
import time

from tests.bench.conftest import COMMAND, demo_plan
from tests.bench.helpers import (REPO, agent_cmd, bench, bench_argv, check_rates, recompute, slot_dirs, status,
                                 summary_cells)
from tests.support.ray_cluster import WORKER_IP, RayCluster

KEYS = ("task", "category", "label", "trial", "status", "intercepted", "verdict", "outcome", "attempts")


def _rows(out, task, label):
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return sorted(({k: r[k] for k in KEYS} for r in rows if r["task"] == task and r["label"] == label),
                  key=lambda r: r["trial"])


def test_ray_two_node_cluster_gives_the_local_results(demo_bench, tmp_path):
    local, _ = demo_bench
    out = tmp_path / "ray-bench"
    read_only = tmp_path / "read-only"  # the worker node sees it read-only (its own mount namespace)
    read_only.mkdir()
    # the demo bench's plan, travel only, agent `command` only (2 runs: trial 1 drives, trial 2 idles)
    plan = demo_plan("travel-flight-oneway", agents=(COMMAND,))
    with RayCluster(tmp_path, worker_read_only=read_only) as cluster:
        ray = ["--executor", "ray", "--address", cluster.address]
        proc = bench(*plan, *ray, "--out", str(out))
        refused = bench(*plan, *ray, "--out", str(read_only / "b"))
        stopped, stopped_err = _sigterm_halfway(plan, ray, tmp_path / "stopped")
    assert proc.returncode == 0, proc.stderr[-3000:] + "".join(p.read_text()[-2000:] for p in cluster.logs)
    assert _rows(out, "travel-flight-oneway", "command") == _rows(local, "travel-flight-oneway", "command")
    assert summary_cells(out) == recompute(out)
    assert recompute(out)["command"]["travel"] == recompute(local)["command"]["travel"]
    check_rates(out)
    attempts = [json.loads((d / "bench_attempt.json").read_text()) for d in slot_dirs(out)]
    assert len(attempts) == 2 and all(a["executor"] == "ray" for a in attempts)
    nodes = {a["node"].rsplit(":", 1)[-1] for a in attempts}
    assert len(nodes) == 2, nodes  # both nodes ran runs
    sites = [json.loads((d / "manifest.json").read_text())["sites"]["travel"] for d in slot_dirs(out)]
    assert all(u.startswith("http://127.0.0.1:") for u in sites) and len(set(sites)) == 2

    lines = refused.stderr.strip().splitlines()
    assert refused.returncode == 2 and len(lines) == 1, refused.stderr[-3000:]
    assert lines[0].startswith(f"clawrec: --out {read_only / 'b'}: Ray node {WORKER_IP} ") \
        and "cannot write in" in lines[0] and "Read-only file system" in lines[0] \
        and "must be a path every node shares and can write" in lines[0], lines[0]
    assert not (read_only / "b" / "runs").exists() and not list((read_only / "b").glob(".ray-probe*"))

    # SIGTERM stops a Ray bench as it stops a local one: each task stops its run (finalized by the run itself)
    assert stopped.returncode == 143, stopped_err[-3000:]
    for d in slot_dirs(tmp_path / "stopped"):
        m = json.loads((d / "manifest.json").read_text())
        assert (m["status"], m["stop_reason"]) == ("crashed", "terminated (SIGTERM)"), m


def _sigterm_halfway(plan, ray, out):
    """A bench of two held runs (one per node) through Ray, sent SIGTERM once both are being recorded."""
    i = plan.index("--agent-cmd") + 1
    argv = bench_argv(*plan[:i], agent_cmd("hold"), *plan[i + 1:], *ray, "--out", str(out))
    proc = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    runs = out / "runs" / "travel-flight-oneway" / "command"
    end = time.monotonic() + 300
    try:
        while not all(status(runs / f"trial-{k}") == "running" for k in (1, 2)):
            assert time.monotonic() < end and proc.poll() is None, "the held runs never started"
            time.sleep(0.2)
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=300)
    return proc, err
