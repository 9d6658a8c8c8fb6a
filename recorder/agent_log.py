"""Layer 4: agent messages in agent.jsonl, from in-process adapters and from out-of-process agents.

In-process adapters call the sink (`AgentLogSink(role, content, **fields)`, the clawrec.agents.base.AgentLog
shape). Out-of-process agents append JSONL to `CLAWREC_AGENT_LOG` (the inbox); a tailer copies each complete line
into agent.jsonl, normalized: role aliases mapped, `content` found under common names, epoch times (`ts`, `time`,
`timestamp`: seconds, milliseconds or ISO 8601) converted to the run clock, else the time the line was read.
The inbox offset is persisted so `recover()` copies only what the dead process had not copied yet.
"""

from __future__ import annotations

import asyncio
import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any

from rundir.layers import AgentMessage
from rundir.records import AGENT, JsonlWriter, RunClock

INBOX = ".agent-inbox.jsonl"
INBOX_OFFSET = ".agent-inbox.offset"
ROLES = ("system", "user", "assistant", "tool_call", "tool_result")
ROLE_ALIASES = {"human": "user", "ai": "assistant", "model": "assistant", "agent": "assistant",
                "tool": "tool_result", "function": "tool_result", "observation": "tool_result",
                "tool_use": "tool_call", "function_call": "tool_call", "action": "tool_call", "developer": "system"}
TIME_KEYS = ("ts", "time", "timestamp")


def _epoch_seconds(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value / 1000.0 if value > 1e11 else float(value)
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None


def normalize(obj: Any, clock: RunClock) -> dict[str, Any]:
    """One inbox line (already JSON-decoded) as an agent.jsonl record's keys, without `t` clashes."""
    if not isinstance(obj, dict):
        return {"t": clock.now(), "role": "system", "content": obj, "unparsed": True}
    rec = dict(obj)
    t = None
    for key in TIME_KEYS:
        if key in rec:
            epoch = _epoch_seconds(rec.pop(key))
            if epoch is not None and t is None:
                t = clock.from_epoch(epoch)
    rec.pop("t", None)  # an outside process cannot know our clock; never trust its `t`
    role = str(rec.pop("role", "") or rec.pop("type", "") or "assistant").lower()
    role = ROLE_ALIASES.get(role, role)
    content = rec.pop("content", None)
    if content is None:
        for key in ("text", "message", "output", "input"):
            if key in rec:
                content = rec.pop(key)
                break
    out: dict[str, Any] = {"t": clock.now() if t is None else t, "role": role if role in ROLES else "system",
                           "content": content}
    if role not in ROLES:
        out["original_role"] = role
    out.update(rec)
    return out


class AgentLogSink:
    """Callable sink + inbox tailer writing run_dir/agent.jsonl."""

    def __init__(self, run_dir: str | Path, clock: RunClock, poll: float = 0.2) -> None:
        self.run_dir = Path(run_dir)
        self.clock = clock
        self.poll = poll
        self.writer = JsonlWriter(self.run_dir / AGENT, clock)
        self.inbox = self.run_dir / INBOX
        self.inbox.touch()
        self._offset_file = self.run_dir / INBOX_OFFSET
        self._offset = _read_offset(self._offset_file)
        self._task: asyncio.Task | None = None
        self._closed = False

    @property
    def count(self) -> int:
        return self.writer.count

    def __call__(self, role: str, content: Any, **fields: Any) -> None:
        role = ROLE_ALIASES.get(role, role)
        self.writer.write(AgentMessage.build(**{"t": self.clock.now(), "role": role, "content": content, **fields}))

    def start(self) -> None:
        self._task = asyncio.create_task(self._tail(), name="recorder-agent-inbox")

    async def _tail(self) -> None:
        while True:
            self.drain()
            await asyncio.sleep(self.poll)

    def drain(self) -> int:
        """Copy complete new inbox lines into agent.jsonl; returns how many."""
        self._offset, n = copy_inbox(self.inbox, self._offset, self.writer, self.clock)
        if n:
            try:
                self._offset_file.write_text(str(self._offset))
            except OSError as exc:  # a full disk: the run's write guard stops the run
                self.writer.fail(self._offset_file, exc)
        return n

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None
        self.close()

    def close(self) -> None:
        """Final drain (a last line without newline is taken too), then remove the inbox."""
        if self._closed:
            return
        self._closed = True
        self._offset, _ = copy_inbox(self.inbox, self._offset, self.writer, self.clock, final=True)
        self.writer.close()
        self.inbox.unlink(missing_ok=True)
        self._offset_file.unlink(missing_ok=True)


def _read_offset(path: Path) -> int:
    try:
        return int(path.read_text().strip() or 0)
    except (OSError, ValueError):
        return 0


def copy_inbox(inbox: Path, offset: int, writer: JsonlWriter, clock: RunClock,
               final: bool = False) -> tuple[int, int]:
    try:
        with open(inbox, "rb") as fh:
            fh.seek(offset)
            data = fh.read()
    except FileNotFoundError:
        return offset, 0
    if not final:
        cut = data.rfind(b"\n")
        data = data[:cut + 1] if cut >= 0 else b""
    n = 0
    for line in data.splitlines():
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            obj = line.decode("utf-8", "replace")
        writer.write(AgentMessage.build(**normalize(obj, clock)))
        n += 1
    return offset + len(data), n


def recover_inbox(run_dir: str | Path, clock: RunClock) -> int:
    """After a crash: copy what the dead process had not copied from the inbox, then remove it."""
    run_dir = Path(run_dir)
    inbox = run_dir / INBOX
    if not inbox.exists():
        return 0
    with JsonlWriter(run_dir / AGENT, clock) as writer:
        _, n = copy_inbox(inbox, _read_offset(run_dir / INBOX_OFFSET), writer, clock, final=True)
    inbox.unlink(missing_ok=True)
    (run_dir / INBOX_OFFSET).unlink(missing_ok=True)
    return n


def env_for(sink: AgentLogSink) -> dict[str, str]:
    """The environment an out-of-process agent needs to log (merge into its env)."""
    return {"CLAWREC_AGENT_LOG": os.fspath(sink.inbox)}
