"""One record type per layer (rundir/layers.py): what the writers build is what RunDir parses, byte for byte.

Two sources of records: the run directories recorded by the real writers (tests/fixtures/runs/real: every layer,
HTTP and catches included), and the writers that run without a browser (agent log, action channel, screenshot
index) driven here. The HTTP log and catches in a live browser: tests/interceptor/test_channels.py.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from recorder.agent_log import INBOX, AgentLogSink
from recorder.channel import ActionChannel
from recorder.screenshots import Screenshotter
from rundir import records as R
from rundir.layers import (LAYER_RECORDS, Action, AgentMessage, HttpRecord, Interception, Screenshot, mistyped,
                           undeclared)
from rundir.reader import RunDir
from rundir.redact import Redactor
from rundir.records import JsonlWriter, RunClock, dumps_line, read_numbered

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "runs" / "real"
LAYERS = {R.INTERCEPTIONS: Interception, R.HTTP: HttpRecord, R.ACTIONS: Action, R.AGENT: AgentMessage,
          R.SCREENSHOTS_INDEX: Screenshot}
RUNS = sorted(p.parent for p in REAL.rglob(R.MANIFEST))


def layer_lines(run: Path, file: str) -> list[tuple[int, dict, str]]:
    text = (run / file).read_text(encoding="utf-8").splitlines(keepends=True) if (run / file).exists() else []
    rows, bad, _n = read_numbered(run / file)
    assert not bad, f"{run / file}: corrupt lines {bad}"
    return [(n, raw, text[n - 1]) for n, raw in rows]


def test_recorded_runs_round_trip_byte_for_byte():
    """Each line the writers wrote: every key is a field of its class, and the record built from those keys is the
    same line again, byte for byte (key order, absent keys, values). JsonlWriter adds only `t` and redaction, the
    same for a record as for a dict (test_records_and_dicts_write_the_same_bytes_redacted)."""
    assert len(RUNS) >= 10 and set(LAYER_RECORDS) == set(LAYERS.values())
    seen = {file: 0 for file in LAYERS}
    for run in RUNS:
        assert RunDir(run).load_all().problems == [], run
        for file, cls in LAYERS.items():
            for n, raw, text in layer_lines(run, file):
                assert undeclared(cls, raw) == [] and mistyped(cls, raw) == [], f"{run / file}:{n}"
                assert dumps_line(cls.build(**raw).to_json()) == text, f"{run / file}:{n}"
                seen[file] += 1
    assert all(n > 0 for n in seen.values()), seen


def test_agent_log_writes_agent_messages(tmp_path):
    clock = RunClock()
    sink = AgentLogSink(tmp_path, clock)
    sink("assistant", "thinking", tool="browser", model="m1")
    sink("ai", {"text": "x"})
    with open(tmp_path / INBOX, "w", encoding="utf-8") as fh:  # an outside agent's lines
        fh.write('{"role": "critic", "text": "?", "ts": 1700000000}\nnot json\n')
    sink.close()
    run = RunDir(tmp_path).load_all()
    msgs = list(run.agent)
    assert [m.role for m in msgs] == ["assistant", "assistant", "system", "system"] and run.problems == [
        f"{R.MANIFEST}: missing (crashed run?); layers read without it"]
    assert msgs[0].tool == "browser" and msgs[2].original_role == "critic" and msgs[3].unparsed is True
    # the sink's own keys are fields; the adapter's `model` is kept as it came (OPEN)
    assert [undeclared(AgentMessage, m.raw) for m in msgs] == [["model"], [], [], []]
    assert all(AgentMessage.parse(m.line, m.raw).to_json() == m.raw for m in msgs)


def test_action_channel_writes_actions(tmp_path):
    """The extension's events of a recorded run, sent through the channel again: every key it writes is declared."""
    events = [raw for _n, raw, _t in layer_lines(REAL / "jobs" / "reference", R.ACTIONS)]
    assert {e["type"] for e in events} >= {"click", "input", "navigate", "load", "tab_open"}

    async def send() -> None:
        clock = RunClock()
        with JsonlWriter(tmp_path / R.ACTIONS, clock) as writer:
            chan = ActionChannel(writer, clock, token="tok")
            for e in events:
                evt = {k: v for k, v in e.items() if k not in ("t", "seq", "t_event")}
                chan._write_event({**evt, "ts": (clock.t0 + e.get("t_event", e["t"])) * 1000})
            chan._write_event({"type": "dropped", "count": 2, "source": "service_worker"})
            chan.flush()

    asyncio.run(send())
    run = RunDir(tmp_path).load_all()
    assert len(run.actions) == len(events) + 1 and run.problems[1:] == []
    assert [undeclared(Action, a.raw) for a in run.actions] == [[]] * len(run.actions)
    assert [a.seq for a in run.actions] == list(range(1, len(events) + 2))


def test_screenshot_index_writes_screenshots(tmp_path):
    clock = RunClock()
    shots = Screenshotter(tmp_path, clock, "ws://127.0.0.1:9/unused")
    shots.dir.mkdir()
    shots.index = JsonlWriter(tmp_path / R.SCREENSHOTS_INDEX, clock)
    shots._write([{"seq": 3, "type": "click", "t": 0.0}], 0.5, 0.1, b"\xff\xd8jpeg", None, "T1", "http://x/")
    shots._write([{"seq": 4, "type": "input"}], 0.7, 0.0, None, "cancelled", None, None)
    shots.index.close()
    run = RunDir(tmp_path).load_all()
    ok, failed = run.screenshots
    assert run.problems[1:] == [] and [undeclared(Screenshot, s.raw) for s in run.screenshots] == [[], []]
    assert (ok.action_seq, ok.path, run.screenshot_file(ok)) == (3, "screenshots/000001.jpg", tmp_path / ok.path)
    assert (failed.action_seq, failed.error, failed.raw["path"]) == (4, "cancelled", None)


class StoppedClock(RunClock):
    def now(self) -> float:
        return 2.5


@pytest.mark.parametrize("cls,keys,secret", [
    (HttpRecord, {"type": "websocket", "event": "sent", "id": "7", "url": "ws://h/", "target": "page",
                  "opcode": 1, "payload": '{"msg": "hunter22"}', "size": 19}, b"hunter22"),
    (HttpRecord, {"type": "request", "id": "8", "url": "http://h/?token=abc123", "method": "POST",
                  "headers": {"Cookie": "s=1", "X-A": "b"}, "body": {"kind": "json", "value": {"password": "p4ss"}},
                  "response": None, "intercepted": None, "size": 10, "error": "net::ERR_FAILED", "canceled": False},
     b"p4ss"),
    (Interception, {"rule": "r", "rule_index": 0, "url": "http://h/api", "method": "POST", "headers": {},
                    "query": {}, "body": {"card_number": "4111111111111111"}, "raw": "", "action": "blocked",
                    "undecidable": True}, b"4111111111111111"),
])
def test_records_and_dicts_write_the_same_bytes_redacted(tmp_path, cls, keys, secret):
    """JsonlWriter writes a record exactly as it wrote the writer's dict, redaction included (by field name, and
    the run's secret values); `t` added in front when the record has none."""
    clock = StoppedClock()
    with JsonlWriter(tmp_path / "dict.jsonl", clock, redactor=Redactor(["hunter22"])) as a, \
            JsonlWriter(tmp_path / "record.jsonl", clock, redactor=Redactor(["hunter22"])) as b:
        a.write({"t": 1.25, **keys})
        b.write(cls.build(t=1.25, **keys))
        a.write(keys)
        b.write(cls.build(**keys))
    written = (tmp_path / "record.jsonl").read_bytes()
    assert written == (tmp_path / "dict.jsonl").read_bytes()
    assert secret not in written and written.count(b"[redacted]") >= 2 and written.count(b'{"t":2.5,') == 1


def test_undeclared_keys_are_refused_unless_the_layer_is_open():
    with pytest.raises(TypeError, match="HttpRecord declares no field for new_key"):
        HttpRecord.build(type="request", new_key=1)
    with pytest.raises(TypeError, match="Screenshot"):
        Screenshot.build(seq=1, thumbnail="x")
    assert Action.build(type="click", added_by_page=1).to_json() == {"type": "click", "added_by_page": 1}
    catch = Interception.build(raw="a=1", rule=None)
    assert (catch.raw_body, catch.to_json()) == ("a=1", {"raw": "a=1", "rule": None})
