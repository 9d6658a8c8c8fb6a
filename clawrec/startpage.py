"""Open the task's start page in the browser's first tab, once the interceptor is attached.

Why the pipeline does it and not each agent: every agent (and the person at a headed browser) should begin on the
same page, and the navigation must come after the interceptor is on, never before.
"""

from __future__ import annotations

import asyncio

from interceptor.cdp import CDPError, Connection


async def open_start_page(browser_ws_url: str, url: str, timeout: float = 20.0) -> str:
    """Navigate the first normal tab to `url` and wait for its load event (bounded by `timeout`). Returns "" or, when
    the site has not answered within `timeout`, a note naming it: the navigation goes on in the tab and the run with
    it (a site that hangs is the task's outcome, not a broken browser to retry)."""
    conn = await Connection.open(browser_ws_url)
    try:
        root = conn.root
        targets = (await root.call("Target.getTargets"))["targetInfos"]
        pages = [t for t in targets if t.get("type") == "page" and not t.get("url", "").startswith(
            ("chrome-extension://", "devtools://"))]
        if pages:
            target_id = pages[0]["targetId"]
        else:
            target_id = (await root.call("Target.createTarget", {"url": "about:blank"}))["targetId"]
        sid = (await root.call("Target.attachToTarget", {"targetId": target_id, "flatten": True}))["sessionId"]
        page = conn.session(sid)
        if page is None:
            raise CDPError("Target.attachToTarget", sid, "closed", "the start tab went away")
        loaded = asyncio.Event()
        page.on("Page.loadEventFired", lambda _params: loaded.set())
        await page.call("Page.enable")
        try:
            result = await page.call("Page.navigate", {"url": url, "transitionType": "typed"}, timeout=timeout)
        except CDPError as exc:
            if exc.kind != "timeout":
                raise
            await root.call("Target.activateTarget", {"targetId": target_id})
            return f"the start page {url} did not answer within {timeout:g} s"
        if result.get("errorText"):
            raise CDPError("Page.navigate", sid, "error", f"{url}: {result['errorText']}")
        try:
            await asyncio.wait_for(loaded.wait(), timeout)
        except asyncio.TimeoutError:
            pass  # a slow page is the agent's business; it was opened
        await root.call("Target.activateTarget", {"targetId": target_id})
        return ""
    finally:
        await conn.close()
