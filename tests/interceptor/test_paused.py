"""A paused request is answered exactly once, and a catch marks the HTTP log once (interceptor/paused.py)."""

from __future__ import annotations

import pytest

from interceptor.paused import AnsweredTwice, PausedRequest


class FakeSession:
    """Records what would be sent to Chrome (the object under test only queues commands on its session)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict]] = []

    def send_quiet(self, method: str, params: dict) -> None:
        self.sent.append((method, params))


def _paused(marks: list) -> tuple[PausedRequest, FakeSession]:
    s = FakeSession()
    params = {"requestId": "r1", "networkId": "n1", "request": {"url": "http://h/api", "method": "POST"}}
    return PausedRequest(s, params, lambda nid, action: marks.append((nid, action))), s  # type: ignore[arg-type]


@pytest.mark.parametrize("answer, method, action, marked", [
    (lambda p: p.continue_(), "Fetch.continueRequest", "continued", False),
    (lambda p: p.fail(), "Fetch.failRequest", "blocked", True),
    (lambda p: p.fail(caught=False), "Fetch.failRequest", "failed", False),
    (lambda p: p.fulfill(200, {"a": 1}, b"{}"), "Fetch.fulfillRequest", "fulfilled", True),
    (lambda p: p.continue_(landed=True), "Fetch.continueRequest", "landed", True),
])
def test_one_answer_and_one_mark(answer, method, action, marked):
    marks: list = []
    paused, session = _paused(marks)
    assert answer(paused) == action and paused.answer == action
    assert [m for m, _ in session.sent] == [method] and session.sent[0][1]["requestId"] == "r1"
    assert marks == ([("n1", action)] if marked else [])
    with pytest.raises(AnsweredTwice):
        paused.continue_()
    assert len(session.sent) == 1 and len(marks) == (1 if marked else 0)
