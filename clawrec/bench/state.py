"""What a slot's run directory says happened, read from disk only (never from the bench's memory).

Why from disk: a resume must trust what finished, whatever killed the previous bench. A slot is
- `done`: the manifest has a final status the agent is answerable for (intercepted, ok, timeout, agent_error);
- `infra`: no manifest, or status `running` (the run or the bench was killed; the runner finalizes it to
  `interrupted` first), `interrupted`, `crashed` (browser, display, the recorder, clawrec itself, or the run
  stopped with the bench), or the bench's deadline killed it; retried up to --retries times (ffmpeg or the
  screenshot connection lost is not `infra`: the run goes on without that layer, and results.jsonl's
  `layers_failed` says so);
- `stopped`: the person stopped the bench (SIGTERM, Ctrl-C, SIGHUP: the attempt says `stopped`) or killed it (kill
  -9: the next bench found the run `running` with no attempt record and wrote one): not the run's failure, so it is
  run again on every resume and never spends --retries;
- `bad_input`: the run refused its input (exit 2); retrying cannot help, the line is shown;
- `todo`: never started.
Earlier attempts are moved aside to `trial-K.attempt-N` (kept for forensics, never counted), so the slot folder
always holds the latest attempt and `report.html` links stay stable; only the failed ones (not stopped) count
against --retries.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clawrec.bench.plan import Slot

ATTEMPT_FILE = "bench_attempt.json"      # written by the runner when the child ends: exit code, deadline kill
JUDGE_ERROR_FILE = "judge_error.json"    # a judge that could not answer (judge_inconclusive); removed on success
OUTCOME_STATUSES = ("intercepted", "ok", "timeout", "agent_error")


@dataclass
class SlotState:
    slot: Slot
    path: Path
    kind: str                       # todo | done | infra | stopped | bad_input
    reason: str = ""
    manifest: dict[str, Any] = field(default_factory=dict)
    attempt: dict[str, Any] = field(default_factory=dict)
    failed_attempts: int = 0        # earlier attempts that failed (they spent --retries)
    stopped_attempts: int = 0       # earlier attempts stopped with the bench (they did not)
    verdict: dict[str, Any] | None = None
    judge_error: dict[str, Any] | None = None

    @property
    def judge_state(self) -> str:
        """PASS | FAIL | judge_inconclusive | unjudged."""
        if self.verdict is not None and self.verdict.get("verdict") in ("PASS", "FAIL"):
            return str(self.verdict["verdict"])
        if self.judge_error is not None:
            return "judge_inconclusive"
        return "unjudged"


def read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _manifest(path: Path) -> dict[str, Any] | None:
    """The manifest through RunDir (typed, crash-tolerant); None when there is none or it is unreadable."""
    from rundir.errors import RunDirError
    from rundir.reader import RunDir

    if not (path / "manifest.json").is_file():
        return None
    try:
        return dict(RunDir(path).manifest)
    except RunDirError:
        return None


def failed_attempt_dirs(path: Path) -> list[Path]:
    pat = re.compile(re.escape(path.name) + r"\.attempt-(\d+)$")
    if not path.parent.is_dir():
        return []
    found = [(int(m.group(1)), p) for p in path.parent.iterdir() if (m := pat.match(p.name))]
    return [p for _, p in sorted(found)]


def was_stopped(path: Path) -> bool:
    """The attempt in `path` ended because the bench was stopped or killed (not a failure of the run)."""
    return bool((read_json(path / ATTEMPT_FILE) or {}).get("stopped"))


def read_slot(root: Path, slot: Slot) -> SlotState:
    path = slot.run_dir(root)
    earlier = failed_attempt_dirs(path)
    stops = sum(1 for p in earlier if was_stopped(p))
    failed = len(earlier) - stops
    if not path.is_dir() or not any(path.iterdir()):
        return SlotState(slot, path, "todo", failed_attempts=failed, stopped_attempts=stops)
    attempt = read_json(path / ATTEMPT_FILE) or {}
    manifest = _manifest(path)
    st = SlotState(slot, path, "infra", manifest=manifest or {}, attempt=attempt, failed_attempts=failed,
                   stopped_attempts=stops, verdict=read_json(path / "verdict.json"),
                   judge_error=read_json(path / JUDGE_ERROR_FILE))
    status = (manifest or {}).get("status")
    if attempt.get("stopped") and status not in OUTCOME_STATUSES:  # ended by then anyway: the outcome stands
        st.kind, st.reason = "stopped", str(attempt["stopped"])
    elif attempt.get("killed"):
        st.reason = str(attempt["killed"])
    elif attempt.get("exit_code") == 2 and status in (None, "running", "crashed"):
        st.kind, st.reason = "bad_input", str(attempt.get("error") or "the run refused its input (exit 2)")
    elif manifest is None:
        st.reason = str(attempt.get("error") or "no manifest.json (the run never started or was killed)")
    elif status in OUTCOME_STATUSES:
        st.kind, st.reason = "done", str(manifest.get("stop_reason") or "")
    elif status == "running":
        st.reason = "the run was killed before it finished (manifest still `running`)"
    else:
        st.reason = f"{status}: {manifest.get('stop_reason') or ''}".rstrip(": ")
    return st


def move_aside(path: Path) -> Path:
    """Keep a failed attempt as `NAME.attempt-N` so the slot folder can hold the next one."""
    n = len(failed_attempt_dirs(path)) + 1
    dest = path.with_name(f"{path.name}.attempt-{n}")
    while dest.exists():
        n += 1
        dest = path.with_name(f"{path.name}.attempt-{n}")
    os.replace(path, dest)
    return dest


def write_json(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    os.replace(tmp, path)
