"""Where a request came from: the tab URL and the frame URL of a CDP session's frames.

Why: a catch must say which page and which frame sent it (the anchor records neither). Page targets and
out-of-process iframes report frame commits through Page.frameNavigated; the tab is the nearest `page` session up the
attach chain. Workers have no frames: their frame URL is the worker script.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlsplit

from interceptor.cdp import Session
from taskspec import payload

FRAME_TYPES = ("page", "iframe")


class Frames:
    """frameId -> committed URL, fed by Page events of every page/iframe session."""

    def __init__(self) -> None:
        self.urls: dict[str, str] = {}

    def prepare(self, session: Session) -> list[asyncio.Future]:
        if session.target_type not in FRAME_TYPES:
            return []
        session.on("Page.frameNavigated", self._navigated)
        session.on("Page.navigatedWithinDocument", self._within)
        fut = session.send("Page.enable")
        tree = session.send("Page.getFrameTree")
        tree.add_done_callback(self._tree)
        return [fut]

    def _navigated(self, params: dict[str, Any]) -> None:
        frame = params["frame"]
        self.urls[frame["id"]] = frame.get("url", "") + frame.get("urlFragment", "")

    def _within(self, params: dict[str, Any]) -> None:
        self.urls[params["frameId"]] = params["url"]

    def _tree(self, fut: asyncio.Future) -> None:
        if fut.cancelled() or fut.exception() is not None:
            return
        stack = [fut.result().get("frameTree", {})]
        while stack:
            node = stack.pop()
            frame = node.get("frame", {})
            if frame.get("id") and frame["id"] not in self.urls:
                self.urls[frame["id"]] = frame.get("url", "")
            stack.extend(node.get("childFrames", []))

    def frame_url(self, session: Session, frame_id: str | None) -> str:
        """The frame's committed URL; a frame that has committed nothing yet (a new popup) is about:blank."""
        if frame_id and self.urls.get(frame_id):
            return self.urls[frame_id]
        if session.target_type not in FRAME_TYPES and session.target_type:
            return session.target_info.get("url", "")
        return self.urls.get(session.target_id) or "about:blank"

    def tab(self, session: Session) -> Session | None:
        s: Session | None = session
        while s is not None and s.target_type != "page":
            s = s.parent
        return s

    def tab_url(self, session: Session) -> str | None:
        """The tab's committed URL (main frame id == page targetId); None for service and shared workers."""
        tab = self.tab(session)
        if tab is None:
            return None
        return self.urls.get(tab.target_id) or "about:blank"

    def opener_url(self, session: Session, infos: dict[str, dict[str, Any]]) -> str | None:
        """For a popup / new tab: the URL of the page that opened it (None otherwise)."""
        tab = self.tab(session)
        opener = tab.target_info.get("openerId") if tab is not None else None
        if not opener:
            return None
        return self.urls.get(opener) or infos.get(opener, {}).get("url")

    async def sender_url(self, session: Session, params: dict[str, Any], documents: dict[str, str] | None) -> str:
        """The document that sent a paused request (`documents`: the HTTP log's networkId -> document URL). A
        navigation belongs to the frame's committed document; a subresource to the document in
        Network.requestWillBeSent (a keepalive fetch on unload is sent while the frame already shows the next page).
        That event may trail Fetch.requestPaused, so wait briefly (caught requests only, after the answer was sent),
        then fall back to a full-URL Referer, then to the frame's current document."""
        current = self.frame_url(session, params.get("frameId"))
        net_id = params.get("networkId")
        if params.get("resourceType") == "Document":
            return current
        for _ in range(50 if documents is not None and net_id else 0):
            if net_id in documents:
                return documents[net_id]
            await asyncio.sleep(0.01)
        referer = payload.header(params["request"].get("headers", {}), "referer")
        if referer and urlsplit(referer).path not in ("", "/"):
            return referer
        return current
