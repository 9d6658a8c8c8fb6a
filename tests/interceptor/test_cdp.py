"""The thin CDP client against a real Chromium: pipelining, errors naming method/session, closing fails pending."""

from __future__ import annotations

import asyncio

import pytest

from interceptor.cdp import CDPError, Connection


def test_pipelined_calls_errors_and_close(browser):
    async def scenario() -> None:
        conn = await Connection.open(browser.ws_url)
        futs = [conn.root.send("Browser.getVersion") for _ in range(20)]
        results = await asyncio.gather(*futs)
        assert all("Chrome" in r["product"] for r in results)
        with pytest.raises(CDPError) as err:
            await conn.root.send("No.suchMethod")
        assert err.value.kind == "error" and err.value.method == "No.suchMethod" and "No.suchMethod" in str(err.value)
        target = await conn.root.send("Target.createTarget", {"url": "about:blank"})
        attached = await conn.root.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})
        page = conn.session(attached["sessionId"])
        assert page is not None and page.target_type == "page"
        ev = asyncio.Event()
        page.on("Page.loadEventFired", lambda p: ev.set())
        await page.send("Page.enable")
        await page.send("Page.navigate", {"url": "data:text/html,<p>hi</p>"})
        await asyncio.wait_for(ev.wait(), 20)
        closed: list[str] = []
        conn.on_close.append(lambda c: closed.append(c.close_reason))
        hang = page.send("Runtime.evaluate", {"expression": "new Promise(() => {})", "awaitPromise": True})
        browser.kill()  # the browser goes away with a call pending
        with pytest.raises(CDPError) as err:
            await asyncio.wait_for(hang, 20)
        assert err.value.kind == "closed" and err.value.method == "Runtime.evaluate"
        assert closed and conn.closed
        late = conn.root.send("Browser.getVersion")
        with pytest.raises(CDPError):
            await late

    asyncio.run(scenario())
