"""Hold mode says everything in both places (`clawrec record` on a private Xvfb; the page drives itself when the
test's WebSocket server tells it to): the page's `hello` frame, sent the moment its socket opens, is printed in the
terminal and answered there; a frame allowed on the task page (a real browser clicking its Allow button) is echoed
in the terminal; a frame nobody answers shows its countdown on the page, then "blocked: no answer in N s" in the
terminal and on the page. The WebSocket server's log is the truth of what was sent. With hold off, the task page
has no hold section."""

from __future__ import annotations

import asyncio
import json
import re
import urllib.request
from urllib.parse import quote

from recorder.browser import find_chromium
from recorder.control_page import ControlPage
from recorder.display import start_display
from tests.pipeline.helpers import jsonl
from tests.record.helpers import recording, wait_for
from tests.record.holdsite import HoldSite, WsSite, write_spec

TIMEOUT = 8


def test_held_frames_and_every_decision_are_shown_in_the_terminal_and_on_the_page(tmp_path):
    from playwright.sync_api import sync_playwright

    display = start_display()
    try:
        with HoldSite() as site, WsSite() as ws:
            spec = write_spec(tmp_path, site, "hold-echo",
                              start_url=f"{site.url}forms?hello=1&ws={quote(ws.url, safe='')}")
            run = tmp_path / "run"
            with recording(spec, run, "--display", display.name, "--no-video", "--hold-timeout", str(TIMEOUT)) \
                    as (proc, err):
                # 1. the hello frame: printed as soon as it is held (whatever else is being printed), answered here
                err.wait(rf"hold #1: WEBSOCKET {re.escape(ws.url)}  hello=1  -- a = allow, b = block "
                         rf"\(blocked in {TIMEOUT} s\)", timeout=120)
                proc.stdin.write("a 1\n")
                proc.stdin.flush()
                err.wait(r"hold #1: allowed \(in the terminal\)")
                wait_for(lambda: ws.received, "the allowed hello at the server")
                control_url = err.wait(r"task page and controls .*: (\S+)").group(1)
                with sync_playwright() as pw:
                    browser = pw.chromium.launch(executable_path=find_chromium(), args=["--no-sandbox"])
                    page = browser.new_page()
                    page.goto(control_url)
                    page.wait_for_selector("#decided-1")
                    assert page.locator("#decided-1").inner_text().endswith("allowed (in the terminal)")
                    # 2. a frame allowed on the task page: echoed in the terminal
                    ws.tell("one")
                    err.wait(rf"hold #2: WEBSOCKET {re.escape(ws.url)}  n=9, note=alone")
                    row = page.locator("#held-2")
                    row.wait_for()
                    assert row.locator("button.block").inner_text() == "Block (this is the final submission)"
                    row.locator("button.allow").click()
                    err.wait(r"hold #2: allowed \(on the task page\)")
                    wait_for(lambda: len(ws.received) >= 2, "the frame allowed on the page at the server")
                    # 3. a frame nobody answers: its countdown on the page, then blocked at the timeout, both places
                    ws.tell("one")
                    err.wait(r"hold #3: WEBSOCKET ")
                    def seconds() -> int:  # -1: no countdown shown (yet, or any more)
                        text = page.evaluate("document.querySelector('#held-3 .left')?.textContent || ''")
                        m = re.fullmatch(r"blocked in (\d+) s without an answer", text)
                        return int(m.group(1)) if m else -1

                    first = wait_for(lambda: seconds() > 0 and seconds(), "the countdown on the page")
                    assert first <= TIMEOUT
                    wait_for(lambda: 0 <= seconds() < first, "the countdown going down")
                    err.wait(rf"hold #3: blocked: no answer in {TIMEOUT} s", timeout=TIMEOUT + 60)
                    page.wait_for_selector("#decided-3")
                    assert page.locator("#decided-3").inner_text().endswith(f"blocked: no answer in {TIMEOUT} s")
                    assert page.locator("#held-3").count() == 0
                    page.locator("#done").click()
                    proc.wait(timeout=120)  # (stderr stays with its reader: every line is in err.lines)
                    browser.close()
    finally:
        display.stop()
    assert proc.returncode == 0, "\n".join(err.lines)
    assert [json.loads(m) for m in ws.received] == [{"hello": 1}, {"n": 9, "note": "alone"}]
    holds = jsonl(run, "holds.jsonl")
    assert [(h["id"], h["decision"], h["by"]) for h in holds] == [
        (1, "allow", "terminal"), (2, "allow", "page"), (3, "block", "timeout")]
    # each decision is echoed once
    assert sum(bool(re.match(r"clawrec: hold #\d+: (allowed|blocked)", line)) for line in err.lines) == 3, err.lines


def test_no_hold_section_when_hold_is_off():
    async def page() -> str:
        control = await ControlPage("Do it.", {"name": "Alex"}, []).start()
        try:
            return await asyncio.to_thread(lambda: urllib.request.urlopen(control.url, timeout=10).read().decode())
        finally:
            await control.stop()

    text = asyncio.run(page())
    assert "Do it." in text and "Held requests" not in text and 'id="held"' not in text
