"""`--executor ray` on a real two-node Ray cluster started here on loopback (head + a second worker node, each
declaring one `browser`): the demo bench's travel task, run through Ray, gives the same results as the local
executor gave for the same runs, and runs land on both nodes."""

from __future__ import annotations

import json

from tests.bench.conftest import demo_plan
from tests.bench.helpers import bench, check_rates, recompute, slot_dirs, summary_cells
from tests.support.ray_cluster import RayCluster

KEYS = ("task", "category", "label", "trial", "status", "intercepted", "verdict", "outcome", "attempts")


def _rows(out, task):
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return sorted(({k: r[k] for k in KEYS} for r in rows if r["task"] == task), key=lambda r: (r["label"], r["trial"]))


def test_ray_two_node_cluster_gives_the_local_results(demo_bench, tmp_path):
    local, _ = demo_bench
    out = tmp_path / "ray-bench"
    with RayCluster(tmp_path) as cluster:  # the demo bench's plan, travel only (4 runs)
        proc = bench(*demo_plan("travel-flight-oneway"), "--executor", "ray", "--address", cluster.address, "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-3000:] + "".join(p.read_text()[-2000:] for p in cluster.logs)
    assert _rows(out, "travel-flight-oneway") == _rows(local, "travel-flight-oneway")
    assert summary_cells(out) == recompute(out)
    for label, cols in recompute(out).items():
        assert cols["travel"] == recompute(local)[label]["travel"]
    check_rates(out)
    attempts = [json.loads((d / "bench_attempt.json").read_text()) for d in slot_dirs(out)]
    assert len(attempts) == 4 and all(a["executor"] == "ray" for a in attempts)
    nodes = {a["node"].rsplit(":", 1)[-1] for a in attempts}
    assert len(nodes) == 2, nodes  # both nodes ran runs
    sites = [json.loads((d / "manifest.json").read_text())["sites"]["travel"] for d in slot_dirs(out)]
    assert all(u.startswith("http://127.0.0.1:") for u in sites) and len(set(sites)) == 4
