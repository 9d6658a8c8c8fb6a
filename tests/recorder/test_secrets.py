"""`Recording(secrets=...)`: a value that must never reach a run file (a single-use login URL's one-time part, a
token) is replaced by `[redacted]` in actions.jsonl, agent.jsonl and screenshots.jsonl, with real Chromium and the
extension recording a page whose URL holds it."""

from __future__ import annotations

import asyncio

from playwright.async_api import async_playwright

from rundir.records import read_jsonl
from recorder.session import Recording
from tests.recorder.helpers import serve_test_site, wait_for

SECRET = "otp-7f3a9c2e51d04b8b"


def test_secrets_never_reach_the_recorder_files(tmp_path):
    async def run() -> None:
        async with serve_test_site() as (base, _hits):
            rec = Recording(tmp_path, agent="script", headless=True, video=False, secrets=[SECRET])
            await rec.start()
            try:
                async with async_playwright() as p:
                    browser = await p.chromium.connect_over_cdp(rec.browser.http_url)
                    page = browser.contexts[0].pages[0]
                    assert await rec.wait_extension(20)
                    await page.goto(f"{base}/?otp={SECRET}&retURL=/home")
                    await page.click("#go")
                    rec.agent_log("assistant", f"I opened ?otp={SECRET}")
                    await wait_for(lambda: any(s.get("action_type") == "click" for s in
                                               read_jsonl(tmp_path / "screenshots/screenshots.jsonl")[0]),
                                   timeout=20, what="the click's screenshot")
                    await browser.close()
            finally:
                await rec.finalize("ok", "done")

    asyncio.run(run())
    leaked = [p for p in tmp_path.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]
    assert leaked == []
    actions = (tmp_path / "actions.jsonl").read_text()
    assert "otp=[redacted]" in actions  # recorded, with the value masked
    assert "otp=[redacted]" in (tmp_path / "agent.jsonl").read_text()
    assert "otp=[redacted]" in (tmp_path / "screenshots/screenshots.jsonl").read_text()
