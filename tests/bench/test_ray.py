"""`--executor ray` on a real two-node Ray cluster started here on loopback (head + a second worker node, each
declaring one `browser`): the same plan gives the same results table as the local executor, and runs land on both
nodes."""

from __future__ import annotations

import json

from tests.bench.conftest import DEMO_PLAN
from tests.bench.helpers import bench, check_rates, recompute, slot_dirs, summary_cells
from tests.support.ray_cluster import HEAD_IP, WORKER_IP, RayCluster


def _table(out):
    s = json.loads((out / "summary.json").read_text())
    return [{k: r[k] for k in ("label", "columns", "counts", "pass_k")} for r in s["rows"]]


def test_ray_two_node_cluster_gives_the_local_table(demo_bench, tmp_path):
    local, _ = demo_bench
    out = tmp_path / "ray-bench"
    with RayCluster(tmp_path) as cluster:
        proc = bench(*DEMO_PLAN, "--executor", "ray", "--address", cluster.address, "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-3000:] + "".join(p.read_text()[-2000:] for p in cluster.logs)
    assert _table(out) == _table(local)
    assert summary_cells(out) == recompute(out) == recompute(local)
    check_rates(out)
    attempts = [json.loads((d / "bench_attempt.json").read_text()) for d in slot_dirs(out)]
    assert len(attempts) == 8 and all(a["executor"] == "ray" for a in attempts)
    nodes = {a["node"].rsplit(":", 1)[-1] for a in attempts}
    assert len(nodes) == 2, nodes  # both nodes ran runs
    sites = [json.loads((d / "manifest.json").read_text())["sites"]["travel"] for d in slot_dirs(out)]
    assert all(u.startswith("http://127.0.0.1:") for u in sites) and len(set(sites)) == 8
    assert HEAD_IP != WORKER_IP
