"""The scale bench's own reading (bench/scale.py, bench/procs.py), without running it: process kinds from real
command lines, the knee, and what makes a level whole."""

from __future__ import annotations

import json
import os

from bench.procs import kind_of, tree
from bench.scale import completeness, knee, whole


def _level(jobs: int, rph: float, cpu: float = 0.5, **over) -> dict:
    base = {"jobs": jobs, "runs_per_hour": rph, "cpu_util": cpu, "mem_used_peak_mb": 1000, "video_ratio_min": 0.95,
            "shots_missing": 0, "http_unjoined": 0, "agent_incomplete": 0, "infra": 0}
    return {**base, **over}


def test_process_kinds_from_command_lines():
    assert kind_of(b"/usr/lib/chromium/chromium --type=renderer --no-sandbox") == "chromium"
    assert kind_of(b"/usr/bin/Xvfb\0:5\0-screen") == "xvfb" and kind_of(b"/usr/bin/ffmpeg\0-f\0x11grab") == "ffmpeg"
    assert kind_of(b"/x/.venv/bin/python\0-m\0clawrec.cli\0run\0t.yaml") == "clawrec"
    assert kind_of(b"/x/.venv/bin/python\0-m\0clawrec.cli\0bench\0specs") == "bench"
    assert kind_of(b"/x/.venv/bin/python\0/x/bench/paced_agent.py") == "agent"
    assert tree(os.getpid())[os.getpid()] == "agent"  # pytest itself: none of clawrec's kinds


def test_the_knee_is_where_growth_stops_or_a_layer_falls_short():
    grows = [_level(1, 100), _level(4, 380), _level(8, 700), _level(16, 720, cpu=0.97)]
    k = knee(grows)
    assert k["jobs"] == 8 and "CPU" in k["why"]
    # what the whole machine was busy (/proc/stat) decides, not the reaped children's rusage alone
    busy = [_level(1, 100), _level(4, 380), _level(8, 700), _level(16, 720, cpu=0.59, machine_busy=0.98)]
    assert "CPU: CPU 98% of the machine" in knee(busy)["why"]
    short = [_level(1, 100), _level(4, 380), _level(8, 760, shots_missing=3, shots_missing_reasons={"timeout": 3})]
    assert knee(short)["jobs"] == 4 and "3 screenshots missing (timeout 3)" in knee(short)["why"]
    assert not whole(_level(8, 1, video_ratio_min=0.89)) and whole(_level(8, 1))


def test_a_blank_new_tab_is_not_a_missing_screenshot(tmp_path):
    """The recorder never shoots about:blank (a blank new tab); every other wanted action without its shot counts."""
    said = {"taken": 1, "errors": 1, "skipped": 0, "reasons": {"timeout": 1}}  # the recorder's own count
    (tmp_path / "manifest.json").write_text(json.dumps({"status": "intercepted", "duration": 10, "layers": {},
                                                        "recorder": {"screenshots": said}}))
    actions = [{"seq": 1, "type": "load", "url": "about:blank"}, {"seq": 2, "type": "click", "url": "http://x/"},
               {"seq": 3, "type": "click", "url": "http://x/"}]
    (tmp_path / "actions.jsonl").write_text("".join(json.dumps(a) + "\n" for a in actions))
    (tmp_path / "screenshots").mkdir()
    (tmp_path / "screenshots" / "screenshots.jsonl").write_text(json.dumps({"action_seq": 2, "path": "s/1.jpg"}) + "\n")
    got = completeness(tmp_path)
    assert (got["shots_wanted"], got["shots_missing"]) == (2, 1)
    assert got["shots_reasons"] == {"timeout": 1}  # why, as the recorder said it
