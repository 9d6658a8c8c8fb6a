"""An app task frozen and replayed (issue 34, "archived with --archive and replayed offline with --site-from to the same
verdict"): oscar's profile-name task run once against the live shop with `--archive`, then replayed from that run's
archive by the right agent (a one-field-wrong agent's replay: `make bench BENCH=apps`, ~40 s budget here). The replay
asks for the URLs the archive recorded (the app's new instance runs on another port: before the fix every request
missed), every request is answered from the archive (0 misses, 0 live requests), the final POST is caught as live,
and the payload judge gives the same verdict (PASS). What a replay cannot give: the app's own DB never sees the
earlier writes (the login POST was answered by the archive), so the state judge's "logged in" check reads nothing in
replay: state verdicts of app tasks are live-only. Needs `make apps`; fails loudly without it."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from clawrec.apps import corpus
from recorder.browser import find_chromium
from tests.apps.app_runs import assert_payload_verdict
from tests.pipeline.helpers import jsonl, manifest

REPO = Path(__file__).resolve().parents[2]
SPEC = REPO / "specs" / "apps" / "oscar" / "oscar-profile-name.yaml"
AGENT = REPO / "tests" / "apps" / "agent_scripts" / "oscar-profile-name.py"


def _start(run_dir: Path, extra: list[str], flags: list[str]) -> subprocess.Popen:
    cmd = " ".join([sys.executable, str(AGENT), *(f"'{a}'" for a in extra)])
    return subprocess.Popen(
        [sys.executable, "-m", "clawrec.cli", "run", str(SPEC), "--agent", "command", "--agent-cmd", cmd,
         "--headless", "--no-judge", "--no-video", "--run-dir", str(run_dir), *flags], cwd=REPO,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _wait(procs: dict[str, subprocess.Popen]) -> None:
    for name, proc in procs.items():
        out, _ = proc.communicate(timeout=240)
        assert proc.returncode == 0, f"{name}: {out}"


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    find_chromium()
    assert corpus.get("oscar").installed(), "oscar is not installed in .tools/apps: run `make apps`"
    base = tmp_path_factory.mktemp("replay")
    _wait({"live": _start(base / "live", [], ["--archive"])})
    replay = ["--site-from", str(base / "live")]
    _wait({"replay": _start(base / "replay", [], replay)})  # a wrong agent's replay: bench apps (the 40 s budget)
    return {n: base / n for n in ("live", "replay")}


def test_the_replay_is_whole_and_offline(runs):
    live = manifest(runs["live"])
    assert live["status"] == "intercepted" and live["site"]["archive"]["exchanges"] > 0
    (live_catch,) = jsonl(runs["live"], "interceptions.jsonl")
    for name in ("replay",):
        doc = manifest(runs[name])
        assert doc["status"] == "intercepted", doc.get("stop_reason")
        assert doc["site"]["mode"] == "archive" and doc["site"]["misses"] == 0 and doc["site"]["live_requests"] == 0
        assert doc["sites"] == live["sites"]  # the recorded URLs, not the new instance's
        (catch,) = jsonl(runs[name], "interceptions.jsonl")
        assert (catch["method"], catch["url"]) == (live_catch["method"], live_catch["url"])


def test_the_payload_verdict_is_the_same(runs, capsys):
    assert_payload_verdict(runs["live"], None, capsys)
    assert_payload_verdict(runs["replay"], None, capsys)


def test_the_app_never_sees_a_replay(runs):
    def logged_in(run: Path) -> int:
        checks = json.loads((run / "environment.json").read_text())["checks"]
        return next(c for c in checks if c["name"].startswith("the customer is logged in"))["result"]["count"]

    assert logged_in(runs["live"]) == 1
    assert logged_in(runs["replay"]) == 0  # the login POST was the archive's answer: the shop's DB never saw it
