"""interceptor/netjoin.py's join rules, the Network events handed in as Chrome sends them (no browser: the orders
below are the ones measured, see the module docstring; tests/interceptor/test_httplog_join.py runs a real one)."""

from __future__ import annotations

from typing import Any

from interceptor.cdp import Connection, Session
from interceptor.netjoin import NetworkJoin


class Owner:
    """Records what the join hands back, in order."""

    def __init__(self, decline: tuple[str, ...] = ()) -> None:
        self.decline = decline
        self.calls: list[tuple[Any, ...]] = []
        self.join: NetworkJoin[dict[str, Any]] = NetworkJoin(
            self.begin, self.redirected, self.responded, self.ended,
            wire_request=lambda rec, p: rec.setdefault("wire", []).append(p["headers"]))

    def begin(self, session: Session, p: dict[str, Any]) -> dict[str, Any] | None:
        if p["request"]["url"] in self.decline:
            return None
        return {"url": p["request"]["url"], "by": session.id}

    def redirected(self, rec: dict[str, Any], session: Session, response: dict[str, Any]) -> None:
        self.calls.append(("redirected", rec["url"], response["status"]))

    def responded(self, rec: dict[str, Any], session: Session, p: dict[str, Any]) -> None:
        rec["status"] = p["response"]["status"]

    def ended(self, rec: dict[str, Any], session: Session, p: dict[str, Any], error: str | None) -> None:
        self.calls.append(("ended", rec["url"], rec.get("status"), session.id, error, rec.get("wire"), rec["by"]))


def _sessions(owner: Owner) -> tuple[Session, Session]:
    conn = Connection(None)
    page = Session(conn, "page", {"type": "page", "targetId": "P"})
    worker = Session(conn, "worker", {"type": "worker", "targetId": "W"}, parent=page)
    owner.join.listen(page)
    owner.join.listen(worker)
    return page, worker


def _sent(url: str, rid: str = "1.1", **extra: Any) -> dict[str, Any]:
    return {"requestId": rid, "request": {"url": url, "method": "GET", "headers": {}}, **extra}


def test_a_worker_script_is_joined_across_its_two_sessions():
    owner = Owner()
    page, worker = _sessions(owner)
    page._emit("Network.requestWillBeSentExtraInfo", {"requestId": "1.1", "headers": {"Host": "h"}})  # first
    page._emit("Network.requestWillBeSent", _sent("http://h/worker.js"))
    worker._emit("Network.responseReceived", {"requestId": "1.1", "response": {"status": 200}})
    worker._emit("Network.loadingFinished", {"requestId": "1.1"})
    assert owner.calls == [("ended", "http://h/worker.js", 200, "worker", None, [{"Host": "h"}], "page")]
    assert owner.join.open == {}


def test_a_redirect_ends_the_hop_before_it_and_a_second_announcement_keeps_the_first():
    owner = Owner()
    page, worker = _sessions(owner)
    page._emit("Network.requestWillBeSent", _sent("http://h/a"))
    worker._emit("Network.requestWillBeSent", _sent("http://h/a"))  # the same request on another session
    page._emit("Network.requestWillBeSent", _sent("http://h/b", redirectResponse={"status": 302}))
    page._emit("Network.loadingFailed", {"requestId": "1.1", "errorText": "net::ERR_ABORTED"})
    assert owner.calls == [("redirected", "http://h/a", 302),
                           ("ended", "http://h/b", None, "page", "net::ERR_ABORTED", None, "page")]


def test_a_declined_request_drops_its_events_and_drain_returns_what_is_open():
    owner = Owner(decline=("http://own/",))
    page, _worker = _sessions(owner)
    page._emit("Network.requestWillBeSentExtraInfo", {"requestId": "9.9", "headers": {}})
    page._emit("Network.requestWillBeSent", _sent("http://own/", rid="9.9"))
    page._emit("Network.loadingFinished", {"requestId": "9.9"})
    page._emit("Network.requestWillBeSent", _sent("http://h/stream", rid="2.2"))
    assert owner.calls == []
    assert [r["url"] for r in owner.join.drain()] == ["http://h/stream"] and owner.join.open == {}
