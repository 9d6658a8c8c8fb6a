"""Chrome-only yardsticks for bench/interceptor.py: bare CDP clients that switch one piece of Chrome's instrumentation
on and do nothing else, so a figure can say what Chrome itself charges for it, apart from clawrec's own work.

- `chrome_fetch_idle`: Fetch on every page for a pattern nothing matches (the floor of any CDP Fetch interceptor);
  `chrome_fetch_idle_again` is the same in a browser of its own: the A/A control (what a mode identical to the floor
  reads against it is the bench's resolution: each mode has its own browser for the whole run);
- `chrome_fetch_idle_browser`: the same plus Fetch on the browser session (clawrec needs it: a tab opened by
  Target.createTarget{url} or a modifier-click sends its first request before any client can prepare it);
- `chrome_network_idle`: that plus Network.enable on every target the HTTP layer enables it on, with the HTTP layer's
  parameters, events left unread (Chrome's own cost of the HTTP layer's source);
- `chrome_fetch_response`: Fetch on the browser session pausing every response (Response stage) and continuing it at
  once: the cost of the other CDP source an HTTP log could be built from (no bodies read);
- `chrome_netlog`: the page-level floor with Chrome's NetLog written to a file (`--log-net-log`, capture mode
  Everything): the source without CDP (launch flags: `netlog_flags`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

NEVER = [{"urlPattern": "http://never.invalid/*"}]
AUTO = {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True}
YARDSTICKS = ("chrome_fetch_idle", "chrome_fetch_idle_again", "chrome_fetch_idle_browser", "chrome_network_idle",
              "chrome_fetch_response", "chrome_netlog")


def netlog_flags(out: Path) -> list[str]:
    """Chromium flags writing its NetLog (every event, bytes included) to `out`/netlog.json."""
    return [f"--log-net-log={out / 'netlog.json'}", "--net-log-capture-mode=Everything"]


class Yardstick:
    """One bare client: `page_fetch` on page targets, `root_patterns` on the browser session (a paused request is
    continued at once and counted in `paused`, which the report gives), `network` on the HTTP layer's target types."""

    def __init__(self, page_fetch: bool, root_patterns: list[dict[str, Any]], network: bool = False) -> None:
        self.page_fetch, self.root_patterns, self.network = page_fetch, root_patterns, network
        self.paused = 0

    @classmethod
    def named(cls, name: str) -> "Yardstick":
        return {
            "chrome_fetch_idle": lambda: cls(True, []),
            "chrome_fetch_idle_again": lambda: cls(True, []),
            "chrome_netlog": lambda: cls(True, []),
            "chrome_fetch_idle_browser": lambda: cls(True, NEVER),
            "chrome_network_idle": lambda: cls(True, NEVER, network=True),
            "chrome_fetch_response": lambda: cls(False, [{"urlPattern": "*", "requestStage": "Response"}]),
        }[name]()

    async def attach(self, ws_url: str) -> None:
        from interceptor.cdp import Connection
        from interceptor.httplog import BODY_LIMIT, NETWORK_TYPES
        from interceptor.respbody import BUFFERS

        self.conn = await Connection.open(ws_url)

        def attached(session, params: dict[str, Any]) -> None:
            if self.page_fetch and session.target_type == "page":
                session.send_quiet("Fetch.enable", {"patterns": NEVER})
            if self.network and session.target_type in NETWORK_TYPES:
                session.send_quiet("Network.enable", {"maxPostDataSize": BODY_LIMIT, **BUFFERS})
            session.send_quiet("Target.setAutoAttach", AUTO)
            if params.get("waitingForDebugger"):
                session.send_quiet("Runtime.runIfWaitingForDebugger")

        self.conn.on_attach.append(attached)
        root = self.conn.root
        if self.root_patterns:
            def paused(params: dict[str, Any]) -> None:
                self.paused += 1
                root.send_quiet("Fetch.continueRequest", {"requestId": params["requestId"]})

            root.on("Fetch.requestPaused", paused)
            await root.send("Fetch.enable", {"patterns": self.root_patterns})
        await root.send("Target.setAutoAttach", AUTO)

    async def close(self) -> None:
        await self.conn.close()
