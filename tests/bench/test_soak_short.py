"""The soak's two-minute version (issue 36; `make soak` is the hours-long one): five LLM-paced runs at -j 2 on the
demo sites and one on a generated factory site, in two segments (the second goes on with the first's folder, as
`CLAWREC_SOAK_DIR` does), while a run's Chromium, a renderer, ffmpeg, Xvfb, the agent, a `clawrec run` or the bench itself is killed
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
    args = dict(runs=6, jobs=2, fault_every=5, seed=7, fault_s=50, site_faults=(), disk_full=False,
                factory_sites=1)  # the site faults: tests/bench/test_soak_site_faults.py
    first = soak(tmp_path / "soak", deadline_s=45, **args)  # ends at its deadline, runs stopped mid-way
    assert first["segments"] == 1 and first["processes_left"] == [], first
    report = soak(tmp_path / "soak", deadline_s=480, **args)  # the next segment resumes the same bench
    assert report["segments"] == 2 and report["complete"], report
    assert report["terminal_requests_reached_sites"] == [], "a terminal request reached a site"
    assert report["unfinalized_run_dirs"] == []
    assert report["processes_left"] == []
    assert sum(report["faults_injected"].values()) >= 3, report["faults_injected"]
    assert report["outcomes"] == {"unjudged": 6}, report  # the resumed bench finished every run
    assert report["runs_by_site"] == {"demo": 5, "factory": 1} and report["runs_finished"] == 6
    assert report["bench_exit"] == 0, report["bench_last_error"]
    # the generated site's run was driven by the factory's solver (an agent killed by a fault is an outcome too)
    assert not any("no driver" in e for e in report["agent_errors"]), report["agent_errors"]
    stale = [p for p in Path(tempfile.gettempdir()).glob(f"{PREFIX}*")
             if process_start(int(p.name[len(PREFIX):].split("-", 1)[0])) is None]
    assert stale == [], "a killed run's temporary folder outlived the runs after it"
