"""One paused request (Fetch.requestPaused) and its one answer.

Why an object: a paused request must be answered exactly once (continue, fail or fulfill). Answering twice is a
bug (Chrome answers "Invalid InterceptionId" and the second decision is lost, possibly a continue after a block),
and answering never leaves the page hanging. The object refuses a second answer with AnsweredTwice, and marks the
HTTP log once, when the answer is a catch, before Network.loadingFailed can arrive for it.
"""

from __future__ import annotations

import base64
from typing import Any, Callable

from interceptor.cdp import Session

BLOCKED_BY_CLIENT = "BlockedByClient"


class AnsweredTwice(RuntimeError):
    """A paused request was answered a second time (a bug in the interceptor, never a user error)."""


class PausedRequest:
    """`session` paused `params["requestId"]`; `mark(network_id, action)` notes a catch in the HTTP log."""

    __slots__ = ("session", "params", "answer", "_mark")

    def __init__(self, session: Session, params: dict[str, Any],
                 mark: Callable[[str, str], None] | None = None) -> None:
        self.session, self.params, self._mark = session, params, mark
        self.answer: str | None = None  # continued | blocked | fulfilled | landed | failed | replayed

    @property
    def request_id(self) -> str:
        return self.params["requestId"]

    @property
    def network_id(self) -> str | None:
        return self.params.get("networkId")

    @property
    def url(self) -> str:
        return self.params["request"]["url"]

    def _send(self, answer: str, method: str, extra: dict[str, Any] | None = None) -> str:
        if self.answer is not None:
            raise AnsweredTwice(f"{self.url}: answered {answer!r} after {self.answer!r}")
        self.answer = answer
        self.session.send_quiet(method, {"requestId": self.request_id, **(extra or {})})
        if answer in ("blocked", "fulfilled", "landed") and self._mark is not None and self.network_id:
            self._mark(self.network_id, answer)
        return answer

    def continue_(self, *, landed: bool = False) -> str:
        """Let it go on to the site (`landed`: a terminal request a `terminal: land` spec lets through)."""
        return self._send("landed" if landed else "continued", "Fetch.continueRequest")

    def fail(self, *, caught: bool = True) -> str:
        """Fail it as blocked by the client: a catch (`blocked`), or fail-closed housekeeping (`failed`)."""
        return self._send("blocked" if caught else "failed", "Fetch.failRequest", {"errorReason": BLOCKED_BY_CLIENT})

    def fulfill(self, status: int, headers: dict[str, Any] | list[tuple[str, str]], body: bytes, *,
                replayed: bool = False) -> str:
        """Answer it with the spec's fake response, or (`replayed`: not a catch) a replay's recorded one; either
        way it never reaches the site. `headers` may be a list of (name, value): a repeated header (two Set-Cookie
        lines) stays two lines."""
        pairs = headers.items() if isinstance(headers, dict) else headers
        return self._send("replayed" if replayed else "fulfilled", "Fetch.fulfillRequest", {
            "responseCode": status, "responseHeaders": [{"name": k, "value": str(v)} for k, v in pairs],
            "body": base64.b64encode(body).decode()})
