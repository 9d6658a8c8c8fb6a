"""`clawrec sites serve`: one JSON line of base URLs on stdout, every request logged, clean exit on SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request

from sites.truthlog import read_records


def test_serve_prints_urls_logs_and_stops_on_sigterm(tmp_path):
    log = tmp_path / "sites.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "clawrec.cli", "sites", "serve", "--log", str(log)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "CLAWREC_SITES_FROZEN_TIME": "2027-03-04T05:06:07Z"})
    try:
        line = proc.stdout.readline()
        urls = json.loads(line)
        assert set(urls) >= {"travel", "jobs", "shop", "shop_pay", "social"}
        assert all(u.startswith(("http://127.0.0.1:", "http://localhost:")) and u.endswith("/") for u in urls.values())
        page = urllib.request.urlopen(urls["travel"]).read().decode()
        assert "Date" in page and str(1804136767000) in page  # the frozen clock from the environment
        urllib.request.urlopen(urls["social"] + "api/ping?x=1").read()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.stdout.read() == ""  # exactly one stdout line
    recs = read_records(log)
    assert [(r["site"], r["path"]) for r in recs] == [("travel", "/"), ("social", "/api/ping")]
    assert recs[1]["query"] == {"x": ["1"]} and recs[1]["port"] == int(urls["social"].rsplit(":", 1)[1].rstrip("/"))


def test_serve_rejects_bad_frozen_time():
    out = subprocess.run([sys.executable, "-m", "clawrec.cli", "sites", "serve", "--frozen-time", "soon"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 2 and out.stderr.strip() == "clawrec: --frozen-time: not an ISO date/time: 'soon'"
