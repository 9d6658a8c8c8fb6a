"""rundir/scrub.py: a run directory's files scrubbed of a value learnt during the run; lines without it are kept
byte for byte, JSON stays JSON, binary files are left alone."""

from __future__ import annotations

import json

from rundir.scrub import scrub_run, scrub_values
from rundir.redact import Redactor

VALUE = "482913"


def test_scrub_run_replaces_the_value_in_every_text_file_and_keeps_the_rest(tmp_path):
    kept = '{"t":0.5,"role":"user","content":"hello"}\n'
    (tmp_path / "agent.jsonl").write_text(kept + json.dumps({"t": 1, "content": f"the code is {VALUE}"}) + "\n"
                                          + '{"t":2,"content":"torn ' + VALUE)
    (tmp_path / "task.json").write_text(json.dumps({"note": f"code {VALUE}", "n": 1}, indent=2))
    (tmp_path / "agent.stdout.log").write_bytes(f"typing {VALUE}\r\n".encode())
    (tmp_path / "shot.jpg").write_bytes(b"\xff\xd8" + VALUE.encode())
    (tmp_path / "manifest.json").write_text(json.dumps({"stop_reason": VALUE}))  # rewritten by the caller
    changed = scrub_run(tmp_path, [VALUE])
    assert sorted(changed) == ["agent.jsonl", "agent.stdout.log", "task.json"]
    lines = (tmp_path / "agent.jsonl").read_text().splitlines(keepends=True)
    assert lines[0] == kept and json.loads(lines[1])["content"] == "the code is [redacted]"
    assert lines[2] == '{"t":2,"content":"torn [redacted]'
    assert json.loads((tmp_path / "task.json").read_text()) == {"note": "code [redacted]", "n": 1}
    assert (tmp_path / "agent.stdout.log").read_bytes() == b"typing [redacted]\r\n"
    assert VALUE.encode() in (tmp_path / "shot.jpg").read_bytes()
    assert scrub_run(tmp_path, [VALUE]) == []  # nothing left


def test_scrub_values_touches_strings_only():
    base = {"flags": {"agent_cmd": f"agent --pw {VALUE}", "token_count": 3}, "stop_reason": "ok"}
    assert scrub_values(base, Redactor([VALUE])) == {"flags": {"agent_cmd": "agent --pw [redacted]",
                                                                "token_count": 3}, "stop_reason": "ok"}
