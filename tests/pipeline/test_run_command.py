"""`clawrec run --agent command`: a Playwright script completes a task; the run stops on the catch, on the agent's
end, on the time limit, and reports a crashed browser as an infrastructure failure."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path

import pytest

from tests.pipeline.helpers import jsonl, manifest, run_cli, signup_cmd
from tests.pipeline.tinysite import TinySite, write_spec

LAYERS = ("video.mp4", "screenshots/screenshots.jsonl", "http.jsonl", "http.har", "interceptions.jsonl",
          "agent.jsonl", "actions.jsonl", "manifest.json")


def test_command_agent_completes_the_task_headed(tmp_path, capsys):
    """Headed on Xvfb with video: the terminal POST is caught, never reaches the site, all layers are written."""
    with TinySite() as site:
        spec = write_spec(tmp_path, site)
        code, out, err = run_cli([str(spec), "--agent", "command", "--agent-cmd", signup_cmd(),
                                  "--runs-dir", str(tmp_path / "runs")], capsys)
        site_log = list(site.log)
    assert code == 0, err
    run_dir = Path(out[-1])
    assert run_dir.parent == (tmp_path / "runs" / "tiny-signup").resolve()
    assert site.posts("/api/signup") == [] and any(r["path"] == "/" for r in site_log)
    m = manifest(run_dir)
    assert m["status"] == "intercepted" and "POST" in m["stop_reason"]
    assert m["task"]["id"] == "tiny-signup" and m["task"]["spec"] == str(spec.resolve())
    assert len(m["task"]["spec_sha256"]) == 64 and m["agent"] == "command"
    for name in LAYERS:
        assert (run_dir / name).is_file(), name
    assert m["layers"]["video"]["duration"] > 0.5
    caught = jsonl(run_dir, "interceptions.jsonl")
    assert [c["body"] for c in caught] == [{"name": "Alex Doe", "email": "alex@example.com", "plan": "pro"}]
    assert m["stop_t"] - caught[0]["t"] < 10  # the run stops at the catch (bound wide enough for a loaded machine)
    roles = [r["role"] for r in jsonl(run_dir, "agent.jsonl")]
    assert roles[:2] == ["system", "user"] and "tool_call" in roles
    assert "agent: cdp http://127.0.0.1:" in (run_dir / "agent.stdout.log").read_text()  # its stdout is kept
    task = json.loads((run_dir / "task.json").read_text())
    assert task["start_url"] == site.url and task["user"]["email"] == "alex@example.com"
    assert "intercept" not in task  # the agent never sees the rules


def test_lingering_agent_is_stopped_within_grace_of_the_catch(tmp_path, capsys):
    with TinySite() as site:
        spec = write_spec(tmp_path, site)
        code, out, err = run_cli([str(spec), "--agent", "command", "--agent-cmd", signup_cmd("--linger", "3600"),
                                  "--headless", "--grace", "0.3", "--runs-dir", str(tmp_path)], capsys)
    assert code == 0, err
    run_dir = Path(out[-1])
    m = manifest(run_dir)
    catch_t = jsonl(run_dir, "interceptions.jsonl")[0]["t"]
    assert m["status"] == "intercepted" and m["stop_t"] - catch_t < 10
    assert m["duration"] < 600  # the agent would have gone on for an hour
    assert "agent_result" not in m  # it did not end by itself: it was stopped


def test_agent_ending_without_submission_is_ok(tmp_path, capsys):
    """The agent ends and nothing was caught: status ok (a failing agent is agent_error: see the replay and
    registry tests)."""
    with TinySite() as site:
        spec = write_spec(tmp_path, site)
        code, out, _ = run_cli([str(spec), "--agent", "command", "--agent-cmd", "true", "--headless",
                                "--runs-dir", str(tmp_path)], capsys)
    m = manifest(Path(out[-1]))
    assert code == 0 and m["status"] == "ok" and "without a terminal submission" in m["stop_reason"]


def test_time_limit(tmp_path, capsys):
    with TinySite() as site:
        spec = write_spec(tmp_path, site)
        code, out, _ = run_cli([str(spec), "--agent", "command", "--agent-cmd", "sleep 3600", "--headless",
                                "--time-limit", "2", "--runs-dir", str(tmp_path)], capsys)
    m = manifest(Path(out[-1]))
    assert code == 0 and m["status"] == "timeout" and "time limit" in m["stop_reason"]
    assert m["duration"] < 600  # the agent would have slept an hour


KILL_BROWSER = """
import json, os, urllib.request
from websockets.sync.client import connect
ws = json.load(urllib.request.urlopen(os.environ["CLAWREC_CDP_URL"] + "/json/version"))["webSocketDebuggerUrl"]
with connect(ws) as c:
    c.send(json.dumps({"id": 1, "method": "Browser.close"}))
    c.recv()
import time; time.sleep(30)
"""


def test_browser_dying_is_an_infrastructure_failure(tmp_path, capsys):
    script = tmp_path / "kill_browser.py"
    script.write_text(KILL_BROWSER)
    with TinySite() as site:
        spec = write_spec(tmp_path, site)
        code, out, err = run_cli([str(spec), "--agent", "command", "--agent-cmd", f"{sys.executable} {script}",
                                  "--headless", "--runs-dir", str(tmp_path)], capsys)
    assert code == 1
    assert len(err) >= 1 and err[-1].startswith("clawrec: run crashed")
    m = manifest(Path(out[-1]))
    assert m["status"] == "crashed" and m["duration"] < 600


@pytest.mark.parametrize("sig,code,why", [(signal.SIGINT, 130, "interrupted"),
                                          (signal.SIGTERM, 143, "terminated (SIGTERM)")])
def test_human_run_ended_by_ctrl_c_is_ok(tmp_path, sig, code, why):
    """`--agent human`: clawrec waits for the person; Ctrl-C ends the session and the manifest says so. SIGTERM
    (a closed session, a service manager) ends it the same way: same status, the signal named."""
    import time

    from tests.pipeline.helpers import spawn_cli

    from tests.recorder.xvfb import own_xvfb

    with TinySite() as site, own_xvfb() as (_xvfb, display):  # a person needs a display (--headless is refused)
        spec = write_spec(tmp_path, site)
        proc = spawn_cli([str(spec), "--agent", "human", "--display", display, "--no-video", "--run-dir",
                          str(tmp_path / "run")])
        deadline = time.monotonic() + 60
        agent_log = tmp_path / "run" / "agent.jsonl"
        while not (agent_log.exists() and agent_log.read_text().strip()):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.1)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    m = manifest(tmp_path / "run")
    assert m["status"] == "ok" and m["stop_reason"] == f"stopped by the user ({why})"
    assert jsonl(tmp_path / "run", "agent.jsonl")[0]["content"].startswith("Sign me up")
