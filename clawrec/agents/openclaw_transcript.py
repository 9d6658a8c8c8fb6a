"""OpenClaw's session transcript (SQLite, large rows zstd-compressed) → agent.jsonl records, in order.

Why read the database and not OpenClaw's stdout: the `--json` envelope only has the final text and counts; the
transcript has every assistant message, tool call and tool result. It is read incrementally while OpenClaw runs
(a read-only reader beside OpenClaw's writer, WAL mode), so agent.jsonl grows live and nothing is lost when the
pipeline cancels the run.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import zstandard

DB_RELPATH = Path("agents") / "main" / "agent" / "openclaw-agent.sqlite"
MAX_RESULT_CHARS = 20_000


@dataclass
class Record:
    """One agent.jsonl line before the sink stamps it: role, content and extra fields (tool, id, epoch, …)."""

    role: str
    content: Any
    fields: dict[str, Any] = field(default_factory=dict)


def _text(content: Any) -> str:
    """Text of a message's content (string or list of parts); images become a placeholder."""
    if isinstance(content, str):
        return content
    parts = []
    for part in content or []:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            parts.append(part.get("text", ""))
        elif kind == "image":
            parts.append(f"[image {part.get('mimeType', '')}]".replace(" ]", "]"))
    return "\n".join(parts)


def _truncate(text: str, limit: int = MAX_RESULT_CHARS) -> tuple[str, dict[str, Any]]:
    if len(text) <= limit:
        return text, {}
    return text[:limit] + f"\n…[truncated {len(text) - limit} chars]", {"truncated": True, "chars": len(text)}


def event_records(event: dict[str, Any], created_at_ms: int | None = None) -> list[Record]:
    """The agent.jsonl records of one transcript event (only `message` events carry any)."""
    if event.get("type") != "message":
        return []
    msg = event.get("message") or {}
    role = msg.get("role")
    epoch = (created_at_ms or msg.get("timestamp") or 0) / 1000.0
    base: dict[str, Any] = {"epoch": round(epoch, 3)} if epoch else {}
    if role == "user":
        return [Record("user", _text(msg.get("content")), dict(base))]
    if role == "assistant":
        out: list[Record] = []
        for item in msg.get("content") or []:
            kind = item.get("type")
            if kind == "text" and item.get("text"):
                out.append(Record("assistant", item["text"], dict(base)))
            elif kind == "thinking" and item.get("thinking"):
                out.append(Record("assistant", item["thinking"], {**base, "thinking": True}))
            elif kind == "toolCall":
                out.append(Record("tool_call", item.get("arguments") or {},
                                  {**base, "tool": item.get("name", ""), "id": item.get("id", "")}))
        if msg.get("stopReason") == "error" or msg.get("errorMessage"):
            out.append(Record("assistant", msg.get("errorMessage") or "model error", {**base, "error": True}))
        if out:
            out[0].fields.update({k: v for k, v in (("usage", _usage(msg.get("usage"))),
                                                    ("model", msg.get("model")),
                                                    ("stop_reason", msg.get("stopReason"))) if v})
        return out
    if role == "toolResult":
        text, extra = _truncate(_text(msg.get("content")))
        fields = {**base, "tool": msg.get("toolName", ""), "id": msg.get("toolCallId", ""), **extra}
        if msg.get("isError"):
            fields["is_error"] = True
        return [Record("tool_result", text, fields)]
    return []


def _usage(usage: Any) -> dict[str, Any] | None:
    if not isinstance(usage, dict):
        return None
    return {k: usage[k] for k in ("input", "output", "cacheRead", "cacheWrite") if k in usage}


class TranscriptReader:
    """Reads new transcript rows since the last call. Safe to call while OpenClaw writes (read-only connection)."""

    def __init__(self, state_dir: Path) -> None:
        self.db_path = Path(state_dir) / DB_RELPATH
        self._seen: dict[str, int] = {}
        self._snapshot_calls: set[str] = set()  # ids of `snapshot` calls whose result has not come yet
        self._dctx = zstandard.ZstdDecompressor()

    def _rows(self) -> list[tuple[str, int, int, str | None, bytes | None]]:
        if not self.db_path.exists():
            return []
        try:
            db = sqlite3.connect(f"file:{self.db_path}?mode=ro", uri=True, timeout=5)
        except sqlite3.Error:
            return []
        try:
            return db.execute("SELECT session_id, seq, created_at, event_json, event_zstd FROM transcript_events "
                              "ORDER BY created_at, session_id, seq").fetchall()
        except sqlite3.Error:  # not created yet, or busy: try again on the next poll
            return []
        finally:
            db.close()

    def _decode(self, event_json: str | None, event_zstd: bytes | None) -> dict[str, Any] | None:
        try:
            raw = event_json if event_json is not None else self._dctx.decompress(event_zstd or b"").decode("utf-8")
            value = json.loads(raw)
        except (ValueError, zstandard.ZstdError, UnicodeDecodeError):
            return None
        return value if isinstance(value, dict) else None

    def new_events(self) -> Iterator[tuple[dict[str, Any], int]]:
        """(event, created_at_ms) for rows not yet returned, oldest first."""
        for session_id, seq, created_at, event_json, event_zstd in self._rows():
            if seq <= self._seen.get(session_id, -1):
                continue
            event = self._decode(event_json, event_zstd)
            if event is None:  # a half-written row: stop here and retry it next time
                return
            self._seen[session_id] = seq
            yield event, created_at

    def new_records(self) -> list[Record]:
        out = [r for event, created in self.new_events() for r in event_records(event, created)]
        for r in out:  # a result of the browser tool's `snapshot` action is the page's accessibility snapshot
            if r.role == "tool_call" and isinstance(r.content, dict) and r.content.get("action") == "snapshot":
                self._snapshot_calls.add(str(r.fields.get("id")))
            elif r.role == "tool_result" and str(r.fields.get("id")) in self._snapshot_calls:
                self._snapshot_calls.discard(str(r.fields.get("id")))
                if not r.fields.get("is_error"):
                    r.fields["snapshot"] = {"format": "aria", "lines": str(r.content).count("\n") + 1}
        return out
