"""The soak's two-minute version (issue 36; `make soak` is the hours-long one): five LLM-paced runs at -j 2 on the
demo sites while a run's Chromium, a renderer, ffmpeg, Xvfb, the agent, a `clawrec run` or the bench itself is killed
(SIGKILL) at random moments; then the bench is resumed without faults until every run is done. The end state is read
from the sites' own request log, every run directory (failed attempts too), the process table (every process the
soak started carries its tag in its environment) and /tmp."""

from __future__ import annotations

import tempfile
from pathlib import Path

from bench.soak import soak
from clawrec.scratch import PREFIX
from rundir.lock import process_start


def test_a_short_soak_with_faults_ends_clean(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAWREC_PACE_THINK", "0-0.3")
    monkeypatch.setenv("CLAWREC_PACE_ACTIONS", "5-8")
    report = soak(tmp_path / "soak", runs=5, jobs=2, fault_every=5, seed=7, fault_s=50, deadline_s=480,
                  site_faults=(), disk_full=False)  # the site faults: tests/bench/test_soak_site_faults.py
    assert report["terminal_requests_reached_sites"] == [], "a terminal request reached a site"
    assert report["unfinalized_run_dirs"] == []
    assert report["processes_left"] == []
    assert sum(report["faults_injected"].values()) >= 3, report["faults_injected"]
    assert report["outcomes"] == {"unjudged": 5}, report  # the resumed bench finished every run
    assert report["bench_exit"] == 0, report["bench_last_error"]
    stale = [p for p in Path(tempfile.gettempdir()).glob(f"{PREFIX}*")
             if process_start(int(p.name[len(PREFIX):].split("-", 1)[0])) is None]
    assert stale == [], "a killed run's temporary folder outlived the runs after it"
