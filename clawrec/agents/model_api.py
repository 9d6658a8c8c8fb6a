"""Model-API failures of an agent, the same way for every agent: each failed model request (retries included) is a
record in agent.jsonl and a count in the usage, and an agent that keeps failing ends `agent_error` naming the API
status instead of waiting out the run's time limit.

Why a clawrec limit beside the agents' own retries: some agents retry for minutes (Claude Code: 10 retries with
backoff; OpenClaw: 8 with delays of 25 s and more), so a bench against an API that is down would cost the whole time
limit per run and report "time or step limit". After LIMIT failed requests in a row with no model answer between
them (`CLAWREC_MODEL_FAILURES`, default 5), the adapter stops the agent; an agent that gives up first ends the same
way with its own count.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable

DEFAULT_LIMIT = 5
LIMIT_VAR = "CLAWREC_MODEL_FAILURES"
STATUS_IN_TEXT = re.compile(r"(?:\bHTTP/?[\d.]*|\bstatus(?: code)?[=: ]+|\berror code:?|\bAPI error:?|error_status[=: ]+)"
                            r"\s*(\d{3})\b", re.I)


def failure_limit(options: dict[str, Any] | None = None) -> int:
    """Failed model requests in a row before clawrec stops the agent (0: never)."""
    raw = (options or {}).get("model_failures") or os.environ.get(LIMIT_VAR) or DEFAULT_LIMIT
    try:
        return max(0, int(raw))
    except (TypeError, ValueError):
        return DEFAULT_LIMIT


def status_in(text: str) -> int | None:
    """The HTTP status a failure message names ("Error code: 500", "HTTP 500", "status=500"), else None."""
    m = STATUS_IN_TEXT.search(text or "")
    return int(m.group(1)) if m else None


@dataclass
class ModelFailures:
    """Counts an agent's failed model requests as they are seen and logs each one (role system, `model_api_error`)."""

    log: Callable[..., None]
    limit: int = DEFAULT_LIMIT
    failed: int = 0                  # every failed request of the run (the usage's `failed_requests`)
    in_a_row: int = 0                # since the last model answer
    answers: int = 0                 # model answers seen (0: the agent never got one)
    statuses: list[int] = field(default_factory=list)
    last_detail: str = ""
    sink: dict[str, Any] | None = None   # a usage record kept up to date (`failed_requests`) as failures arrive

    def __post_init__(self) -> None:
        if self.sink is not None:
            self.sink["failed_requests"] = self.failed

    def failure(self, status: int | None, detail: str = "", **fields: Any) -> None:
        self.failed += 1
        if self.sink is not None:
            self.sink["failed_requests"] = self.failed
        self.in_a_row += 1
        if status is not None:
            self.statuses.append(int(status))
        self.last_detail = " ".join(str(detail).split())[:300]
        what = f"HTTP {status}" if status is not None else "no answer"
        self.log("system", f"model API error: {what} (failed request {self.failed})"
                 + (f": {self.last_detail}" if self.last_detail else ""),
                 model_api_error=True, error_status=status, **fields)

    def answer(self) -> None:
        self.answers += 1
        self.in_a_row = 0

    @property
    def exhausted(self) -> bool:
        """clawrec's limit reached: LIMIT failures in a row."""
        return bool(self.limit) and self.in_a_row >= self.limit

    @property
    def status(self) -> int | None:
        return self.statuses[-1] if self.statuses else None

    def reason(self, kind: str = "") -> str:
        """One line for the run's stop reason: the API status, how many requests failed, and whether any answered
        (`kind`: the client's error class, named first)."""
        what = (f"{kind}: " if kind else "") + (f"HTTP {self.status}" if self.status is not None else "no answer")
        tail = "no model answer in the run" if not self.answers else f"{self.in_a_row} in a row"
        limit = f"; stopped at clawrec's limit of {self.limit} ({LIMIT_VAR})" if self.exhausted else ""
        return f"model API error: {what} ({self.failed} failed requests, {tail}{limit})" + (
            f": {self.last_detail}" if self.last_detail else "")

    def usage(self, record: dict[str, Any]) -> dict[str, Any]:
        """The usage record with the failed requests counted."""
        return {**record, "failed_requests": self.failed}


def anthropic_client(ctx_options: dict[str, Any], failures: ModelFailures) -> Any:
    """An AsyncAnthropic whose every HTTP response (the SDK's retries included) is counted: a status >= 400 is a
    failure, any other a model answer. The SDK's own retries (`max_retries`, default 2) come first."""
    import anthropic

    async def seen(response: Any) -> None:
        if response.status_code >= 400:
            failures.failure(response.status_code, response.reason_phrase or "")
        else:
            failures.answer()

    http = anthropic.DefaultAsyncHttpxClient(event_hooks={"response": [seen]})
    return anthropic.AsyncAnthropic(max_retries=int(ctx_options.get("max_retries", 2)), http_client=http)
