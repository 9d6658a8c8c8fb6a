"""The browser's targets as one capturing layer sees them on its own CDP connection: the pages (and iframes, for the
DOM layer), the page last switched to or acted in, and the layer's session per target. The screenshot and DOM
layers each keep one (their connections are their own, so captures never wait behind paused requests) and pick the
page of an action the same way."""

from __future__ import annotations

from typing import Any

from interceptor.cdp import Session

ACTIVATING = ("tab_switch", "click", "keydown", "load")  # an action of these types makes its page the active one


class TargetTracker:
    def __init__(self, kinds: tuple[str, ...] = ("page",)) -> None:
        self.kinds = kinds
        self.infos: dict[str, dict[str, Any]] = {}  # targetId -> targetInfo
        self.sessions: dict[str, str] = {}  # targetId -> sessionId on the layer's connection
        self.active: str | None = None

    async def watch(self, root: Session) -> None:
        root.on("Target.targetCreated", self._on_target)
        root.on("Target.targetInfoChanged", self._on_target)
        root.on("Target.targetDestroyed", self._on_destroyed)
        root.on("Target.detachedFromTarget", self._on_detached)
        await root.call("Target.setDiscoverTargets", {"discover": True})

    @property
    def pages(self) -> dict[str, str]:
        """targetId -> URL of each page."""
        return {t: i.get("url", "") for t, i in self.infos.items() if i.get("type") == "page"}

    def note(self, action: dict) -> dict[str, str]:
        """Make an action's page the active one if the action activates it; returns the pages."""
        pages = self.pages
        tid = action.get("target_id")
        if tid in pages and action.get("type") in ACTIVATING:
            self.active = tid
        return pages

    def _on_target(self, params: dict) -> None:
        info = params.get("targetInfo", {})
        if info.get("type") in self.kinds:
            self.infos[info["targetId"]] = info

    def _on_destroyed(self, params: dict) -> None:
        tid = params.get("targetId")
        self.infos.pop(tid, None)
        self.sessions.pop(tid, None)
        if self.active == tid:
            self.active = None

    def _on_detached(self, params: dict) -> None:
        for tid, sid in list(self.sessions.items()):
            if sid == params.get("sessionId"):
                self.sessions.pop(tid, None)
