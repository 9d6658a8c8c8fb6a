"""Read coalescing in the CDP client (interceptor/cdp.py COALESCE_S, off by default; bench/README.md "clawrec's own
CPU per request"): with the socket left unread 3 ms after each message, the HTTP log still joins every request across
sessions (the cross-session join test of test_httplog_join, run again) and the reads were held."""

from __future__ import annotations

import interceptor.cdp as cdp
from tests.interceptor import test_httplog_join as join
from tests.interceptor.test_httplog_join import h  # noqa: F401  (the module's browser + channel server)


def test_join_holds_with_reads_coalesced(h, tmp_path, monkeypatch):  # noqa: F811
    holds = []
    plain = cdp.Connection._hold_reads

    def counted(self: cdp.Connection) -> None:
        holds.append(1)
        plain(self)

    monkeypatch.setattr(cdp, "COALESCE_S", 0.003)
    monkeypatch.setattr(cdp.Connection, "_hold_reads", counted)
    join.test_worker_script_and_cross_site_iframe_are_logged_with_their_status(h, tmp_path)
    assert len(holds) > 10
