"""Two runs at once on one machine do not clash: own display, own CDP port, own run dir, both caught."""

from __future__ import annotations

import re
from pathlib import Path

from tests.pipeline.helpers import jsonl, manifest, signup_cmd, spawn_cli
from tests.pipeline.tinysite import TinySite, write_spec


def test_two_headed_runs_at_once(tmp_path):
    with TinySite() as site:
        spec = write_spec(tmp_path, site)
        procs = [spawn_cli([str(spec), "--agent", "command", "--agent-cmd", signup_cmd(),
                            "--runs-dir", str(tmp_path / "runs")]) for _ in range(2)]
        results = [p.communicate(timeout=240) for p in procs]
        assert site.posts("/api/signup") == []
    for p, (out, err) in zip(procs, results):
        assert p.returncode == 0, err
    dirs = [Path(out.strip().splitlines()[-1]) for out, _ in results]
    assert dirs[0] != dirs[1] and all(d.is_dir() for d in dirs)
    manifests = [manifest(d) for d in dirs]
    assert [m["status"] for m in manifests] == ["intercepted", "intercepted"]
    assert manifests[0]["display"] != manifests[1]["display"]
    ports = [re.search(r"agent: cdp http://127\.0\.0\.1:(\d+)", (d / "agent.stdout.log").read_text()).group(1)
             for d in dirs]
    assert ports[0] != ports[1]
    for d in dirs:
        assert len(jsonl(d, "interceptions.jsonl")) == 1
        assert manifest(d)["layers"]["video"]["duration"] > 0.5
