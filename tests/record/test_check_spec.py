"""`clawrec check-spec` on small recorded run folders (files as the recorder writes them): a spec matching twice
in a reference, or once in a benign run, fails with a report naming the requests; the right spec passes; and
`record --headless` is refused with one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from clawrec.cli import main

REPO = Path(__file__).resolve().parents[2]
URL = "http://127.0.0.1:9/api/signup"


def make_run(folder: Path, agent: str, requests: list[dict], caught: int | None = None) -> Path:
    """A run folder with http.jsonl (JSON POSTs) and, when `caught` is an index, that request blocked."""
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({"agent": agent, "status": "ok", "task": {"id": "t"}}))
    (folder / "task.json").write_text(json.dumps({"instruction": "Sign me up."}))
    lines = []
    for n, body in enumerate(requests):
        rec = {"t": n, "id": f"r{n}", "url": body.pop("_url", URL), "method": "POST",
               "body": {"kind": "json", "value": body}}
        if n == caught:
            rec["intercepted"] = "blocked"
        lines.append(json.dumps(rec))
    (folder / "http.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def spec(folder: Path, equals: str = "") -> Path:
    path = folder / "t.yaml"
    path.write_text(f"""version: 1
id: t
instruction: Sign me up.
start_url: http://127.0.0.1:9/
intercept:
  - url: "{URL}"
    method: POST
{equals}""")
    return path


def check(capsys, *args: str) -> tuple[int, str]:
    code = main(["check-spec", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out + err


def test_check_spec_accepts_one_match_at_the_terminal_request_and_none_in_a_benign_run(tmp_path, capsys):
    ref = make_run(tmp_path / "ref", "human", [{"plan": "free", "_url": URL + "/draft"}, {"plan": "pro"}], caught=1)
    benign = make_run(tmp_path / "benign", "command", [{"plan": "pro", "_url": URL + "/draft"}])
    code, out = check(capsys, spec(tmp_path), ref, "--benign", benign)
    assert code == 0, out
    assert f"{ref} (reference): 1 match(es) -- OK" in out and "http.jsonl:2 POST" in out
    assert f"{benign} (benign): 0 match(es) -- OK" in out and out.rstrip().endswith("check-spec: OK")


def test_check_spec_fails_for_two_matches_in_a_reference_and_one_in_a_benign_run(tmp_path, capsys):
    ref = make_run(tmp_path / "ref", "human", [{"plan": "free"}, {"plan": "pro"}], caught=1)
    benign = make_run(tmp_path / "benign", "command", [{"plan": "free"}])
    code, out = check(capsys, spec(tmp_path), "--reference", ref, "--benign", benign)
    assert code == 1
    assert f"{ref} (reference): 2 match(es) -- FAIL: 2 matches (expected exactly 1, at its terminal request " \
           "http.jsonl:2)" in out
    assert f"{benign} (benign): 1 match(es) -- FAIL: 1 match(es) in a benign run (expected none)" in out
    assert "clawrec: check-spec: the spec does not fit the runs" in out
    # `equals` tells the two apart: the reference passes, the benign run (plan free) no longer matches
    code, out = check(capsys, spec(tmp_path, "    equals: {plan: pro}\n"), "--reference", ref, "--benign", benign)
    assert code == 0, out


def test_a_held_websocket_frame_is_no_catch_and_the_last_person_block_is_the_terminal(tmp_path, capsys):
    """Hold mode blocks WebSocket frames too (interceptions.jsonl only); they are not catches: the terminal request
    is the last one a person blocked, a frame or an HTTP request."""
    ref = make_run(tmp_path / "ref", "human", [{"plan": "free", "_url": URL + "/draft"}, {"plan": "pro"}])
    lines = [json.loads(x) for x in (ref / "http.jsonl").read_text().splitlines()]
    lines[1]["intercepted"] = "held_blocked"
    (ref / "http.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    frame = {"method": "WEBSOCKET", "url": "ws://127.0.0.1:9/socket", "body": {"n": 1}, "body_kind": "json",
             "action": "held_blocked", "held": {"id": 1, "by": "terminal"}}
    post = {"method": "POST", "url": URL, "body": {"plan": "pro"}, "network_id": "r1", "action": "held_blocked",
            "held": {"id": 2, "by": "terminal"}}
    (ref / "interceptions.jsonl").write_text(json.dumps(frame) + "\n" + json.dumps(post) + "\n")
    code, out = check(capsys, spec(tmp_path, "    equals: {plan: pro}\n"), "--reference", ref)
    assert code == 0 and f"{ref} (reference): 1 match(es) -- OK" in out and "http.jsonl:2 POST" in out, out
    # the frame blocked last is the terminal: a rule for the POST now matches the wrong request
    (ref / "interceptions.jsonl").write_text(json.dumps(post) + "\n" + json.dumps(frame) + "\n")
    code, out = check(capsys, spec(tmp_path, "    equals: {plan: pro}\n"), "--reference", ref)
    assert code == 1 and "the match is not its terminal request interceptions.jsonl:2" in out, out


def test_check_spec_bad_input_is_one_line_exit_2(tmp_path, capsys):
    code, out = check(capsys, spec(tmp_path), tmp_path / "nope")
    assert code == 2 and out.strip() == f"clawrec: {tmp_path / 'nope'}: not a run directory (no such directory)"


def test_record_refuses_headless_and_a_missing_display(tmp_path):
    path = spec(tmp_path)
    env = {k: v for k, v in __import__("os").environ.items() if k != "DISPLAY"}
    for args in (["--headless"], []):
        res = subprocess.run([sys.executable, "-m", "clawrec.cli", "record", str(path), "--run-dir",
                              str(tmp_path / "run"), *args], capture_output=True, text=True, cwd=REPO, env=env,
                             timeout=60)
        assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1, res.stderr
        assert not (tmp_path / "run").exists()
    res = subprocess.run([sys.executable, "-m", "clawrec.cli", "run", str(path), "--agent", "human", "--headless"],
                         capture_output=True, text=True, cwd=REPO, timeout=60)
    assert res.returncode == 2 and res.stderr.startswith("clawrec: a person's run cannot be --headless")


def test_closing_the_browser_window_ends_a_persons_session(tmp_path):
    """Ctrl+Shift+W (a person closing the window) ends `record` with status ok and says so in the manifest."""
    import shutil

    from tests.pipeline.helpers import manifest
    from tests.record.helpers import StderrLines
    from tests.pipeline.tinysite import TinySite, write_spec
    from tests.recorder.xvfb import own_xvfb

    with TinySite() as site, own_xvfb() as (_xvfb, display):
        path = write_spec(tmp_path, site)
        proc = subprocess.Popen([sys.executable, "-m", "clawrec.cli", "record", str(path), "--display", display,
                                 "--no-video", "--run-dir", str(tmp_path / "run")], cwd=REPO, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        StderrLines(proc).wait(r"do the task in the browser")  # the session is waiting for the person
        subprocess.run([shutil.which("xdotool") or "xdotool", "mousemove", "600", "400", "key", "ctrl+shift+w"],
                       env={"DISPLAY": display}, check=True, timeout=30)
        proc.wait(timeout=60)
    assert proc.returncode == 0
    m = manifest(tmp_path / "run")
    assert m["status"] == "ok" and "the browser window was closed" in m["stop_reason"], m["stop_reason"]
