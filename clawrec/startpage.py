"""Open the task's start page in the browser's first tab, once the interceptor is attached.

Why the pipeline does it and not each agent: every agent (and the person at a headed browser) should begin on the
same page, and the navigation must come after the interceptor is on, never before.
"""

from __future__ import annotations

import asyncio

from recorder.cdp_client import CDPClient, CDPError


async def open_start_page(browser_ws_url: str, url: str, timeout: float = 20.0) -> None:
    """Navigate the first normal tab to `url` and wait for its load event (bounded by `timeout`)."""
    client = await CDPClient(browser_ws_url).connect()
    try:
        targets = (await client.send("Target.getTargets"))["targetInfos"]
        pages = [t for t in targets if t.get("type") == "page" and not t.get("url", "").startswith(
            ("chrome-extension://", "devtools://"))]
        if pages:
            target_id = pages[0]["targetId"]
        else:
            target_id = (await client.send("Target.createTarget", {"url": "about:blank"}))["targetId"]
        session = (await client.send("Target.attachToTarget", {"targetId": target_id, "flatten": True}))["sessionId"]
        loaded = asyncio.Event()
        client.on("Page.loadEventFired", lambda _p, sid: loaded.set() if sid == session else None)
        await client.send("Page.enable", session_id=session)
        result = await client.send("Page.navigate", {"url": url, "transitionType": "typed"}, session_id=session,
                                   timeout=timeout)
        if result.get("errorText"):
            raise CDPError("Page.navigate", f"{url}: {result['errorText']}")
        try:
            await asyncio.wait_for(loaded.wait(), timeout)
        except asyncio.TimeoutError:
            pass  # a slow page is the agent's business; it was opened
        await client.send("Target.activateTarget", {"targetId": target_id})
    finally:
        await client.close()
