"""A replay's network floor: what Chromium sends past DevTools is refused, so nothing of a replay reaches a site.

Why: a replay answers every request it pauses from the archive (interceptor/replay.py), but Chromium does not route
every request through DevTools. A service worker's update check (`registration.update()`, the soft update after a
navigation to a page the worker controls) is loaded by the browser process with a factory DevTools never sees
(Chromium's service_worker_context_wrapper.cc: "It is currently not recorded at all"); in a replay it reached the
live site (measured, Chromium 156). So a replay's browser gets a proxy that refuses every connection: a loopback
port bound and never listening. `<-loopback>` puts loopback sites behind it too (Chromium bypasses proxies for them
by default); `ws://127.0.0.1` stays direct for the recorder's own channel socket (pages' WebSockets are refused per
target by the replay, and listed as misses). Requests the interceptor answers never reach the proxy; a page cannot
tell a proxy is set.
"""

from __future__ import annotations

import socket
import weakref


class RefusingProxy:
    """A loopback port nobody listens on (bound for this object's life: no other process can take it)."""

    def __init__(self) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))  # never listen(): a connection to it is refused at once
        self.port = self._sock.getsockname()[1]
        weakref.finalize(self, self._sock.close)

    def flags(self) -> list[str]:
        """Chromium flags: every connection through the refusing proxy, the recorder's channel socket excepted."""
        return [f"--proxy-server=http://127.0.0.1:{self.port}", "--proxy-bypass-list=<-loopback>;ws://127.0.0.1"]

    def close(self) -> None:
        self._sock.close()
