"""The drivers never depend on the terminal request succeeding: with it blocked in the browser (as the
interceptor does), each driver still ends promptly, the page shows the failure, and the server never sees it."""

from __future__ import annotations

import time

from sites.drivers import drive
from tests.sites.conftest import load_spec, spec_files, since

# task -> (spec, route glob for the terminal request, the error the page shows)
BLOCKED = {
    "travel": ("travel-flight-oneway", "**/api/bookings", "#book-error"),
    "jobs": ("jobs-apply-analyst", "**/apply/submit", None),  # a form POST: Chromium's own error page
    "shop": ("shop-trail-order", "**/graphql", "#checkout-error"),
    "social": ("social-status-update", "**/api/posts", "#composer-error"),
    "social-share": ("social-share-post", "**/api/shares", None),  # the error shows in the popup
}
TERMINAL = {"travel": "/api/bookings", "jobs": "/jobs/1042/apply/submit", "shop": "/graphql",
            "social": "/api/posts", "social-share": "/api/shares"}


def is_terminal(task: str, rec: dict) -> bool:
    if rec["method"] != "POST" or rec["path"] != TERMINAL[task]:
        return False
    return task != "shop" or '"PlaceOrder"' in rec.get("body", "")


def blocker(task: str):
    """A one-argument route handler (Playwright passes (route, request) to handlers taking two)."""
    async def block(route) -> None:
        if task == "shop" and "PlaceOrder" not in (route.request.post_data or ""):
            await route.continue_()  # only the order is terminal; the other GraphQL operations pass
        else:
            await route.abort("blockedbyclient")
    return block


def test_drivers_end_when_the_terminal_request_is_blocked(sites, pw_browser):
    loop, browser = pw_browser

    async def run() -> dict[str, tuple[float, str, bool | None]]:
        out = {}
        for task, (spec_id, glob, error_sel) in BLOCKED.items():
            spec = load_spec(spec_id)
            # no service worker: the shop then posts the order from the page, where routes apply
            context = await browser.new_context(service_workers="block")
            try:
                await context.route(glob, blocker(task))
                page = await context.new_page()
                page.set_default_timeout(30_000)
                t0 = time.monotonic()
                await drive(task, page, sites.urls, spec["user"], spec_files(spec))
                shown = await page.locator(error_sel).is_visible() if error_sel else None
                out[task] = (time.monotonic() - t0, page.url, shown)
            finally:
                await context.close()
        return out

    start = time.time()
    results = loop.run_until_complete(run())
    records = sites.records()
    for task, (took, url, shown) in results.items():
        assert took < 25, f"{task}: the driver waited {took:.1f}s after a blocked submit"
        assert shown in (True, None), f"{task}: the page shows no error after the blocked submit"
        site = "social" if task.startswith("social") else task
        mine = since(records, start, site)
        assert not [r for r in mine if is_terminal(task, r)], f"{task}: the blocked request reached the server"
        assert any(r["method"] == "GET" and r["path"] == "/" for r in mine), task
    assert results["jobs"][1].startswith("chrome-error://")
    tokens = [r for r in since(records, start, "shop_pay") if r["path"] == "/v1/tokens"]
    assert tokens, "the card was tokenized before the blocked order"
