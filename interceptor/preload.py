"""Speculation-rules preloads bypass DevTools Fetch (measured), so a preload of a URL a rule names is fatal.

recorder.browser turns preloading off (the real fix); this watch is the fail-closed backstop for a browser that
still preloads. It is best effort: it won the race for prefetch 3/3 but lost it for prerender 2/3 (measured).
"""

from __future__ import annotations

from typing import Any, Callable

from interceptor.cdp import Session
from taskspec import match
from taskspec.model import Rule


def watch_preloading(session: Session, rules: list[Rule], on_state: Callable[[bool], None],
                     fatal: Callable[[str], None]) -> None:
    """Report whether the browser preloads (`on_state`) and call `fatal` when a preload names a rule's URL."""
    def state(p: dict[str, Any]) -> None:
        on_state(not any(v for k, v in p.items() if k.startswith("disabled")))

    def attempt(p: dict[str, Any]) -> None:
        url = p.get("prefetchUrl") or p.get("key", {}).get("url", "")
        if p.get("status") in ("NotSupported", "Failure"):
            return
        if any(match.could_match(r, "GET", url) for r in rules):
            fatal(f"a page preloads {url}, which a rule names; preloads bypass DevTools Fetch")

    session.on("Preload.preloadEnabledStateUpdated", state)
    session.on("Preload.prefetchStatusUpdated", attempt)
    session.on("Preload.prerenderStatusUpdated", attempt)
    session.send_quiet("Preload.enable")
