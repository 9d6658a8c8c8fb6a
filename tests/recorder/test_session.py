"""A scripted run on Xvfb yields every recorder layer, on one clock, with no password anywhere."""

from __future__ import annotations

import asyncio
import json

from playwright.async_api import async_playwright

from rundir.records import read_jsonl
from recorder.session import Recording
from tests.recorder.helpers import (actions, assert_all_jsonl_parse, assert_video_covers_run, serve_test_site,
                                   wait_for)

PASSWORD = "s3cret-PW-42"
PIN = "9517-PIN-xy"

FIND = """([sel, xp]) => {
  const a = document.querySelector(sel);
  const b = document.evaluate(xp, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
  return {same: !!a && a === b, tag: a && a.localName, id: a && a.id, text: a && a.textContent.trim(),
          count: document.querySelectorAll(sel).length};
}"""

AT_POINT = """([x, y, sel]) => { const hit = document.elementFromPoint(x, y); const el = document.querySelector(sel);
  return !!hit && !!el && (hit === el || el.contains(hit)); }"""


def test_scripted_run_records_all_layers(tmp_path):
    run_dir = tmp_path / "run"
    result = asyncio.run(_scripted_run(run_dir))
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "ok" and manifest["stop_reason"] == "script done"
    assert manifest["task"] == {"id": "t-1", "spec_sha256": "ab" * 32}
    assert manifest["versions"]["chromium"].startswith("Chrome/") and manifest["versions"]["ffmpeg"]

    # layer 1: the video plays and covers the run
    assert_video_covers_run(run_dir / "video.mp4", manifest)
    assert manifest["layers"]["video"]["sha256"] and manifest["layers"]["video"]["frames"] > 0

    # layer 5: clicks with coordinates and descriptors that found the same element again (checked in the page)
    clicks = actions(run_dir, "click")
    trusted = [c for c in clicks if c.get("detail", 0) > 0]
    assert len(trusted) == 6, clicks
    for c in clicks:
        assert isinstance(c["x"], (int, float)) and isinstance(c["page_y"], (int, float))
        assert {"tag", "id", "role", "name", "text", "selector", "xpath"} <= set(c["target"])
    assert result["found"] and all(f["same"] and f["count"] == 1 for f in result["found"]), result["found"]
    assert all(result["at_point"]), result["at_point"]
    names = ["Go", "Third bold", "Inner button", "User name", "PIN", "Inner button"]
    assert [c["target"]["name"] for c in trusted] == names
    inner = trusted[2]
    tabs = {c["tab"] for c in trusted}
    opened = actions(run_dir, "tab_open")
    assert len(tabs) == 2 and [(a["tab"], a.get("initial", False)) for a in opened] == \
        [(trusted[0]["tab"], True), (trusted[-1]["tab"], False)]
    assert {a["tab"] for a in actions(run_dir, "tab_close")} == {trusted[-1]["tab"]}
    assert trusted[-1]["target_id"] != trusted[0]["target_id"]
    assert inner["frame_url"].startswith("http://localhost:") and inner["frame"] != 0
    kinds = {a["type"] for a in actions(run_dir)}
    assert {"navigate", "load", "focus", "keydown", "input", "change", "submit", "scroll", "tab_open"} <= kinds
    typed = [a for a in actions(run_dir, "input") if a["target"].get("name_attr") == "user"]
    assert typed and typed[-1]["value"] == "alice"
    scroll = actions(run_dir, "scroll")[-1]
    assert scroll["y"] == 600 and scroll["final"] is True
    seqs = [a["seq"] for a in actions(run_dir)]
    assert seqs == list(range(1, len(seqs) + 1))

    # layer 2: one screenshot per click, lined up with it on the run clock
    shots, bad = read_jsonl(run_dir / "screenshots" / "screenshots.jsonl")
    assert not bad
    for c in clicks:
        mine = [s for s in shots if s["action_seq"] == c["seq"]]
        assert len(mine) == 1, (c, mine)
        assert (run_dir / mine[0]["path"]).read_bytes()[:3] == b"\xff\xd8\xff"  # JPEG
        assert -0.05 <= mine[0]["t"] - c["t"] <= 0.5, (c["t"], mine[0]["t"])  # page vs recorder clock: ms
    assert manifest["layers"]["screenshots"]["count"] == len([s for s in shots if s["path"]])

    # layer 4: agent messages (in-process sink and the CLAWREC_AGENT_LOG inbox), one clock
    agent, _ = read_jsonl(run_dir / "agent.jsonl")
    assert [a["role"] for a in agent] == ["assistant", "tool_call", "tool_result"]
    assert agent[1]["tool"] == "click" and agent[2]["content"] == "ok"
    assert abs(agent[2]["t"] - result["inbox_t"]) < 0.5
    assert manifest["layers"]["agent"]["count"] == 3 and manifest["layers"]["actions"]["count"] == len(seqs)

    # secrets: the typed password and the one-time PIN are nowhere in the run directory
    for path in run_dir.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert PASSWORD.encode() not in data and PIN.encode() not in data, path
    masked = [a for a in actions(run_dir) if a.get("target", {}).get("secret")]
    assert masked and all(a.get("value") is None and a.get("key") in (None, "Enter", "Tab") for a in masked)
    assert_all_jsonl_parse(run_dir)
    assert not (run_dir / ".video-segments").exists() and not (run_dir / ".agent-inbox.jsonl").exists()


async def _scripted_run(run_dir):
    async with serve_test_site() as (base, hits):
        rec = Recording(run_dir, task_id="t-1", spec_sha256="ab" * 32, agent="script")
        await rec.start()
        try:
            out = await _drive(rec, base, hits, run_dir)
        except BaseException:
            await rec.finalize("crashed", "test failed")
            raise
        # keep the run long enough that 10 % of it is more than one video frame interval
        while rec.clock.now() < rec.ready_t + 5:
            await asyncio.sleep(0.1)
        await rec.finalize("ok", "script done")
    return out


async def _drive(rec, base, hits, run_dir):
    rec.agent_log("assistant", "I will sign in.", model="scripted")
    async with async_playwright() as p:
        browser = await p.chromium.connect_over_cdp(rec.browser.http_url)
        page = browser.contexts[0].pages[0]
        await page.goto(base + "/")
        await page.click("#go")
        await page.click("text=bold")
        frame = next(f for f in page.frames if f.url.endswith("/child"))
        await frame.click("#inner")
        await page.click("#user")
        await page.keyboard.type("alice")
        with rec.agent_log_path.open("a") as fh:  # an out-of-process agent's line: time in epoch ms
            fh.write(json.dumps({"role": "tool_call", "tool": "click", "content": {"ref": "e1"},
                                 "ts": rec.clock.t0 * 1000 + rec.clock.now() * 1000}) + "\n")
        await wait_for(lambda: len(actions(run_dir, "click")) >= 4 and actions(run_dir, "input"), what="clicks")
        found, at_point = [], []
        for c in actions(run_dir, "click"):
            where = frame if c["frame"] != 0 else page
            found.append(await where.evaluate(FIND, [c["target"]["selector"], c["target"]["xpath"]]))
            at_point.append(await where.evaluate(AT_POINT, [c["x"], c["y"], c["target"]["selector"]]))
        await page.fill(".pw", PASSWORD)
        await page.click("[name=pin]")
        await page.keyboard.type(PIN)
        await page.select_option("select", "biz")
        await page.press(".pw", "Enter")
        await wait_for(lambda: ("POST", "/api/log") in hits, what="the form's fetch")
        await page.mouse.move(300, 400)
        await page.mouse.wheel(0, 600)
        await wait_for(lambda: actions(run_dir, "scroll"), what="scroll")
        inbox_t = rec.clock.now()
        with rec.agent_log_path.open("a") as fh:
            fh.write(json.dumps({"role": "tool_result", "content": "ok"}) + "\n")
        await wait_for(lambda: len(read_jsonl(run_dir / "agent.jsonl")[0]) >= 3, what="agent inbox copied")
        n = len(actions(run_dir, "click"))
        await wait_for(lambda: len(read_jsonl(run_dir / "screenshots/screenshots.jsonl")[0]) >= n, what="shots")
        second = await browser.contexts[0].new_page()
        await second.goto(base + "/child")
        await second.click("#inner")
        last = await wait_for(lambda: actions(run_dir, "click")[-1]["tab"] != actions(run_dir, "click")[0]["tab"]
                              and actions(run_dir, "click")[-1], what="click in the second tab")
        await wait_for(lambda: any(s["action_seq"] == last["seq"] for s in
                                   read_jsonl(run_dir / "screenshots/screenshots.jsonl")[0]), what="its shot")
        await second.close()
        await wait_for(lambda: actions(run_dir, "tab_close"), what="tab close")
        await browser.close()
    return {"found": found, "at_point": at_point, "inbox_t": inbox_t}


def test_two_recordings_at_once_stay_apart(tmp_path):
    """Parallel runs: own display, own channel port and token, own extension config; no event crosses over."""
    async def one(rec, base, label):
        async with async_playwright() as p:
            browser = await p.chromium.connect_over_cdp(rec.browser.http_url)
            page = browser.contexts[0].pages[0]
            await page.goto(f"{base}/?run={label}")
            await page.click("#go")
            await wait_for(lambda: actions(rec.run_dir, "click"), what=f"click in {label}")
            await browser.close()

    async def run():
        async with serve_test_site() as (base, _hits):
            recs = [Recording(tmp_path / name, agent="script") for name in ("a", "b")]
            await asyncio.gather(*(r.start() for r in recs))
            try:
                assert recs[0].display.name != recs[1].display.name
                assert recs[0].channel.port != recs[1].channel.port
                assert recs[0].channel.token != recs[1].channel.token
                await asyncio.gather(one(recs[0], base, "a"), one(recs[1], base, "b"))
            finally:
                return await asyncio.gather(*(r.finalize("ok", "done") for r in recs))

    manifests = asyncio.run(run())
    assert [m["status"] for m in manifests] == ["ok", "ok"]
    for name in ("a", "b"):
        urls = {a.get("url") for a in actions(tmp_path / name) if str(a.get("url")).startswith("http")}
        assert len(urls) == 1 and urls.pop().endswith(f"/?run={name}"), urls
        manifest = json.loads((tmp_path / name / "manifest.json").read_text())
        assert_video_covers_run(tmp_path / name / "video.mp4", manifest)
