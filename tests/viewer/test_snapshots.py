"""Accessibility snapshots the agent took reach agent.jsonl marked as such, and the report shows them with their
step: OpenClaw's (read from its SQLite transcript, the way the adapter reads it while OpenClaw runs) here; the
claude agent's are checked in tests/agents/test_claude.py."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import zstandard

from clawrec.agents.openclaw_transcript import DB_RELPATH, TranscriptReader
from evaluator.report import write_report

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "runs" / "real" / "travel"
TREE = '- textbox "Last name" [ref=e7]\n- button "Continue to review" [ref=e9]\n' + "- generic\n" * 400


def _transcript(state: Path, events: list[dict]) -> None:
    db_path = state / DB_RELPATH
    db_path.parent.mkdir(parents=True)
    db = sqlite3.connect(db_path)
    db.execute("CREATE TABLE transcript_events (session_id TEXT, seq INTEGER, created_at INTEGER, event_json TEXT, "
               "event_zstd BLOB)")
    for i, e in enumerate(events):
        raw = json.dumps(e)
        big = len(raw) > 2500  # OpenClaw stores large rows compressed
        db.execute("INSERT INTO transcript_events VALUES (?, ?, ?, ?, ?)",
                   ("s1", i, 1_700_000_000_000 + i, None if big else raw,
                    zstandard.ZstdCompressor().compress(raw.encode()) if big else None))
    db.commit()
    db.close()


def test_openclaw_snapshot_results_are_marked(tmp_path):
    def call(i: str, **args: object) -> dict:
        return {"type": "message", "message": {"role": "assistant", "content": [
            {"type": "toolCall", "id": i, "name": "browser", "arguments": args}]}}

    def result(i: str, text: str) -> dict:
        return {"type": "message", "message": {"role": "toolResult", "toolCallId": i, "toolName": "browser",
                                               "content": [{"type": "text", "text": text}]}}

    _transcript(tmp_path, [call("a", action="snapshot"), result("a", TREE),
                           call("b", action="act", kind="type", ref="e7", text="Dough"), result("b", "typed")])
    records = TranscriptReader(tmp_path).new_records()
    results = [r for r in records if r.role == "tool_result"]
    assert [r.fields.get("snapshot", {}).get("format") for r in results] == ["aria", None]
    assert results[0].content.startswith('- textbox "Last name" [ref=e7]')


def test_report_shows_a_snapshot_with_its_step(tmp_path):
    run = tmp_path / "run"
    shutil.copytree(REAL / "v01-dough", run)
    lines = (run / "agent.jsonl").read_text().splitlines()
    i = next(k for k, line in enumerate(lines) if '"Last name"' in line and '"tool_call"' in line) + 1
    rec = json.loads(lines[i])
    rec.update(content=f"page: http://127.0.0.1/#passengers — Skylark\n{TREE}",
               snapshot={"format": "aria", "url": "http://127.0.0.1/#passengers"})
    lines[i] = json.dumps(rec)
    (run / "agent.jsonl").write_text("\n".join(lines) + "\n")
    page = write_report(run).read_text()
    step = page[page.index("<details class=step id='agent-step-14'"):]
    step = step[:step.index("<details class=step id='agent-step-15'")]
    assert "accessibility snapshot the agent took" in step and "- textbox &quot;Last name&quot; [ref=e7]" in step
