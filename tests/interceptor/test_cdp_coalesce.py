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


def test_a_hold_never_resumes_what_websockets_paused():
    """websockets pauses reading itself when its queue of frames is full (flow control): a hold must not start then,
    and a hold ending while the library has paused must leave the socket paused (only the library resumes it)."""
    import asyncio

    from websockets.asyncio.server import serve

    async def main() -> None:
        async def quiet(ws):  # a peer that sends nothing: the reader stays idle
            await ws.wait_closed()

        async with serve(quiet, "127.0.0.1", 0) as server:
            port = next(iter(server.sockets)).getsockname()[1]
            conn = await cdp.Connection.open(f"ws://127.0.0.1:{port}")
            try:
                transport, flow = conn._ws.transport, conn._ws.recv_messages
                flow.paused = True  # as Assembler.maybe_pause leaves it
                conn._hold_reads()
                assert not conn._held
                flow.paused = False
                conn._hold_reads()
                assert conn._held and not transport.is_reading()
                flow.paused = True  # the library paused during the hold
                conn._release_reads(transport)
                assert not conn._held and not transport.is_reading()
                flow.paused = False
                conn._hold_reads()
                conn._release_reads(transport)
                assert transport.is_reading()
            finally:
                await conn.close()

    asyncio.run(main())
