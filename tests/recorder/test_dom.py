"""Layer 6 (recorder/dom.py, rundir/domfile.py) on a real Chromium: a capture holds every frame, the cross-origin
iframe's own document included (an out-of-process target), with input values, boxes and computed styles; a password,
a one-time code, a CSRF token, inline script text and the run's secret values are never written; a value learnt
after a capture is scrubbed from the file at finalize; a torn last frame (a crash mid-write) loses only itself."""

from __future__ import annotations

import asyncio

from interceptor.cdp import Connection
from recorder.dom import DomRecorder
from rundir import domsnap as D
from rundir.domfile import DomWriter, read_dom, scrub_dom
from rundir.records import DOM, RunClock
from tests.loopback_site import Answer, LoopbackSite

PASSWORD = "Pw-Secret-8812"
OTP = "550913"
TOKEN = "csrf-Zq81-tok"
SPEC_SECRET = "M-77120-QQ"  # a spec secret the page shows in a text field
LATER = "later-learnt-91"

PAGE = f"""<!doctype html><html><head><meta name="csrf-token" content="{TOKEN}">
<script>var inline = "{TOKEN}-in-script";</script></head><body>
<form><input id="name" name="passenger_name"><input id="pw" type="password" name="f1">
<input id="otp" autocomplete="one-time-code"><input type="hidden" name="csrf_token" value="{TOKEN}">
<input id="member" name="member"><p id="note">hello</p>
<button id="go" type="button" disabled style="opacity:0.5">Go</button></form>
<iframe id="pay" src="http://localhost:%(port)d/frame" width="400" height="200"></iframe></body></html>"""
FRAME = """<!doctype html><html><body><input id="card" autocomplete="cc-number"><input id="zip" value="90210">
</body></html>"""


class Site(LoopbackSite):
    def answer(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Answer:
        html = FRAME if path == "/frame" else PAGE % {"port": self.server.server_address[1]}
        return 200, html.encode(), {"content-type": "text/html"}


async def _record(browser, run_dir, url: str) -> DomRecorder:
    conn = await Connection.open(browser.ws_url)
    try:
        targets = (await conn.root.call("Target.getTargets"))["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        sid = (await conn.root.call("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True}))[
            "sessionId"]
        session = conn.session(sid)
        await session.call("Page.enable")
        loaded = asyncio.get_running_loop().create_future()
        session.on("Page.loadEventFired", lambda p: loaded.done() or loaded.set_result(True))
        await session.call("Page.navigate", {"url": url})
        await asyncio.wait_for(loaded, 15)
        for _ in range(100):  # the cross-origin iframe is a target of its own once it has committed
            targets = (await conn.root.call("Target.getTargets"))["targetInfos"]
            if any(t["type"] == "iframe" and "/frame" in t["url"] for t in targets):
                break
            await asyncio.sleep(0.05)
        fill = (f"document.getElementById('name').value='Alex Doe';document.getElementById('pw').value='{PASSWORD}';"
                f"document.getElementById('otp').value='{OTP}';document.getElementById('member').value="
                f"'{SPEC_SECRET}';document.getElementById('note').textContent='code {LATER}';")
        await session.call("Runtime.evaluate", {"expression": fill})
        dom = DomRecorder(run_dir, RunClock(), browser.ws_url)
        dom.secrets = [SPEC_SECRET]
        await dom.start()
        for _ in range(100):
            if dom.targets.infos.get(page["targetId"], {}).get("url", "").startswith("http"):
                break
            await asyncio.sleep(0.02)
        dom.request({"type": "click", "seq": 1, "target_id": page["targetId"], "url": url})
        await dom.stop(final=True)
        return dom
    finally:
        await conn.close()


def test_capture_holds_every_frame_and_no_secret(browser, tmp_path):
    with Site() as site:
        dom = asyncio.run(_record(browser, tmp_path, site.url))
    assert dom.count == 2 and dom.errors == 0  # the action's capture and the final one
    records, bad = read_dom(tmp_path / DOM)
    assert bad == 0 and [r["reason"] for r in records] == ["action", "final"] and records[0]["action_seq"] == 1
    capture = records[0]
    assert [f["type"] for f in capture["frames"]] == ["page", "iframe"]  # the OOPIF, captured on its own target
    docs = D.docs(capture)
    main, frame = docs[0], next(d for d in docs if d.url.endswith("/frame"))
    styles = D.styles_of(capture)
    node = {main.attrs(i).get("id"): i for i in range(len(main)) if main.is_element(i)}
    assert main.value(node["name"]) == "Alex Doe"
    go = main.describe(node["go"], styles)
    assert go["disabled"] is True and go["visible"] is True and go["text"] == "Go" and go["box"][2] > 0
    assert main.style(node["go"], styles)["opacity"] == "0.5"
    zip_node = next(i for i in range(len(frame)) if frame.attrs(i).get("id") == "zip")
    assert frame.value(zip_node) == "90210" and frame.frame_id == capture["frames"][1]["target"]
    # Secrets: the secret inputs keep no value, the token is nowhere, script text is dropped, spec values replaced.
    assert main.value(node["pw"]) == main.value(node["otp"]) == "[redacted]"
    assert main.value(node["member"]) == "[redacted]"
    everything = "\n".join(str(r) for r in records)
    for value in (PASSWORD, OTP, TOKEN, SPEC_SECRET, "-in-script"):
        assert value not in everything, value
    assert LATER in everything  # not a secret yet
    # The viewer's rebuilt page (evaluator/report_dom.py): inert, the cross-origin iframe's document inside its
    # <iframe>, the input values as recorded.
    from evaluator.report_dom import Renderer

    page = Renderer(capture).html()
    assert "<script" not in page.lower() and "srcdoc=" in page and "90210" in page and 'value="Alex Doe"' in page
    # A value learnt after the capture (typed into a secret input later) is scrubbed at finalize.
    assert scrub_dom(tmp_path / DOM, [LATER]) is True
    again, bad = read_dom(tmp_path / DOM)
    assert bad == 0 and len(again) == 2 and LATER not in "\n".join(str(r) for r in again)
    assert D.docs(again[0])[0].value(node["name"]) == "Alex Doe"


def test_torn_last_frame_loses_only_itself(tmp_path):
    path = tmp_path / DOM
    writer = DomWriter(path)
    for seq in (1, 2):
        writer.write({"t": float(seq), "seq": seq, "frames": []})
    writer.close()
    data = path.read_bytes()
    path.write_bytes(data + data[: len(data) // 3])  # a third record cut mid-frame
    records, bad = read_dom(path)
    assert [r["seq"] for r in records] == [1, 2] and bad == 1


def test_lost_dom_connection_degrades_the_dom_layer_only(tmp_path):
    """The DOM layer's own CDP connection lost: the layer is marked failed in the manifest, the run goes on."""
    from recorder.session import Recording

    async def run() -> tuple[dict, bool]:
        rec = Recording(tmp_path, task_id="dom", agent="script", headless=True, video=False, screenshots=False)
        await rec.start()
        try:
            assert rec.dom is not None
            await rec.dom.cdp.close()
            for _ in range(200):
                if "dom" in rec.degraded:
                    break
                await asyncio.sleep(0.05)
            failed = rec.failed.is_set()
        finally:
            manifest = await rec.finalize("ok", "agent finished")
        return manifest, failed

    manifest, failed = asyncio.run(run())
    assert not failed and manifest["status"] == "ok" and manifest["flags"]["dom"] is True
    assert manifest["layers"]["dom"]["failed"] == "the DOM connection was lost"
