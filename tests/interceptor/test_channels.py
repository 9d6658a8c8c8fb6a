"""The adversarial suite: every submission channel, real Chromium (site-per-process), the server's log as truth.

For each channel: the terminal submission never reaches the server, it is in interceptions.jsonl with the right
decoded payload, tab URL and frame URL, and the channel's non-terminal draft (same URL, confirm "no") did reach
the server (no false positive)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from interceptor.core import Interceptor
from rundir.reader import RunDir
from rundir.records import INTERCEPTIONS, read_jsonl
from tests.interceptor.channels import TERMINAL
from tests.interceptor.harness import Harness, channel_rules, make_spec, wait_until

SAME = "page"  # frame and tab are the channel page itself
# channel -> (frame URL path or marker, tab URL kind, target type of the catch, has a draft)
CHANNELS = {
    "fetch": ("page", "page", "page", True),
    "xhr": ("page", "page", "page", True),
    "put": ("page", "page", "page", True),
    "patch": ("page", "page", "page", True),
    "form_post": ("page", "page", "page", False),
    "form_blank": ("popup", "popup", "page", False),
    "beacon": ("page", "page", "page", True),
    "keepalive": ("page", "page", "page", False),
    "popup": ("popup", "popup", "page", False),
    "get_query": ("page", "page", "page", True),
    "xsite_iframe": ("other:/frame/xsite_iframe", "page", "iframe", True),
    "nested_iframe": ("base:/frame/nest_inner", "page", None, False),
    "srcdoc_iframe": ("about:srcdoc", "page", "page", True),
    "dedicated_worker": ("base:/worker.js?ch=dedicated_worker", "page", "worker", True),
    "shared_worker": ("base:/worker.js?ch=shared_worker&shared=1", None, "shared_worker", True),
    "service_worker": ("base:/sw.js?ch=service_worker", None, "service_worker", True),
    "redirect_307": ("page", "page", "page", False),
    "graphql_batch": ("page", "page", "page", True),
    "multipart_form": ("page", "page", "page", False),
    "multipart_fetch": ("page", "page", "page", False),
    "websocket": ("page", "page", "page", True),
    "websocket_borrowed": ("about:blank", "page", "page", True),
    "websocket_stream": ("page", "page", "page", True),
    "link_prefetch": ("page", "page", None, False),
    "websocket_worker": ("base:/wsworker.js", "page", "worker", True),
    "blob_worker": ("blob", "page", "worker", True),
    "data_iframe": ("data", "page", None, True),
    "sandbox_iframe": ("base:/frame/sandboxed", "page", None, True),
    "cdp_new_tab": ("about:blank", "about:blank", None, False),  # Target.createTarget{url: the submission}
    "ctrl_click_link": ("about:blank", "about:blank", None, False),  # a new background tab, no opener
    "middle_click_link": ("about:blank", "about:blank", None, False),
    "shift_click_link": ("about:blank", "about:blank", None, False),  # a new window, no opener
}
MODIFIER_CLICKS = {"ctrl_click_link": {"modifiers": ["Control"]}, "middle_click_link": {"button": "middle"},
                   "shift_click_link": {"modifiers": ["Shift"]}}


@pytest.fixture(scope="module")
def h():
    harness = Harness().start()
    yield harness
    harness.stop()


@pytest.fixture(scope="module")
def disk_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("files") / "resume.pdf"
    path.write_bytes(b"%PDF-1.4\n" + os.urandom(300_000))
    return path


async def _act(page, channel: str, disk: Path) -> None:
    if channel in ("xsite_iframe", "srcdoc_iframe", "data_iframe", "sandbox_iframe"):
        await page.frame_locator("#f").locator("#go").click()
    elif channel == "nested_iframe":
        await page.frame_locator("#f").frame_locator("#inner").locator("#go").click()
    elif channel == "multipart_form":
        await page.set_input_files("input[type=file]", str(disk))
        await page.click("#go")
    elif channel == "multipart_fetch":
        await page.set_input_files("#file", str(disk))
        await page.click("#go")
    elif channel == "cdp_new_tab":
        cdp = await page.context.new_cdp_session(page)
        await cdp.send("Target.createTarget", {"url": page.url.replace("/ch/cdp_new_tab", "/submit/cdp_new_tab?"
                                                                       "order=ORD-cdp_new_tab&confirm=yes")})
    elif channel in MODIFIER_CLICKS:
        await page.click("#go", **MODIFIER_CLICKS[channel])
    elif channel == "service_worker":
        await page.evaluate("window.ready.then(() => 1)")
        await page.click("#go")
    else:
        await page.click("#go")


async def _scenario(h: Harness, channel: str, run_dir: Path, disk: Path) -> tuple[Interceptor, str]:
    icpt = Interceptor(make_spec(channel_rules(h.server), files=(disk,)), run_dir)
    await icpt.attach(h.browser.ws_url)
    ctx = await h.pw_browser.new_context()
    url = f"{h.server.base}/ch/{channel}"
    try:
        page = await ctx.new_page()
        await page.goto(url)
        await _act(page, channel, disk)
        assert await wait_until(lambda: any(f"/submit/{channel}" in (c["url"] or "") or
                                            (channel.startswith("websocket") and c["method"] == "WEBSOCKET")
                                            for c in icpt.catches)), f"{channel}: no catch"
        if CHANNELS[channel][3]:
            assert await wait_until(lambda: any(b'"no"' in e["body"] or b"confirm=no" in e["body"]
                                                or "confirm=no" in e["query"] for e in h.server.log
                                                if channel in e["path"] or channel in e["body"].decode("latin-1")
                                                or channel in e["query"])), f"{channel}: draft did not pass"
    finally:
        await ctx.close()
        await icpt.close()
    return icpt, url


@pytest.mark.parametrize("channel", list(CHANNELS))
def test_channel_caught_never_sent(h, channel, tmp_path, disk_file):
    before = len(h.server.log)
    icpt, url = h.run(_scenario(h, channel, tmp_path, disk_file))
    leaked = [e for e in h.server.log[before:] if e["path"].startswith(("/submit/", "/ws"))
              and (TERMINAL.search(e["body"]) or "confirm=yes" in e["query"])]
    assert not leaked
    assert icpt.failure is None
    catches, bad = read_jsonl(tmp_path / INTERCEPTIONS)
    assert not bad and len(catches) == 1, [c["url"] for c in catches]  # caught once (SWs attach twice)
    run = RunDir(tmp_path).load_all()  # http.jsonl + the catch parse as their records (rundir/layers.py), typed
    assert run.problems == ["manifest.json: missing (crashed run?); layers read without it"] and len(run.http) > 0
    c = catches[0]
    print(channel, {k: c[k] for k in ("url", "method", "tab_url", "frame_url", "target_type", "body")})
    body = c["body"]
    if channel == "graphql_batch":
        assert body[1] == {"operationName": "PlaceOrder", "order": "ORD-graphql_batch", "confirm": "yes"}
    elif channel in ("popup", "get_query", "cdp_new_tab", "link_prefetch", *MODIFIER_CLICKS):
        assert body is None and c["query"] == {"order": f"ORD-{channel}", "confirm": "yes"}
    else:
        assert body["order"] == f"ORD-{channel}" and body["confirm"] == "yes"
    if channel.startswith("multipart"):
        part = body["resume"]
        assert part["filename"] == "resume.pdf" and part["size"] == disk_file.stat().st_size
        assert part["sha256"] == __import__("hashlib").sha256(disk_file.read_bytes()).hexdigest()
    frame, tab, ttype, _ = CHANNELS[channel]
    expect = {"page": url, "popup": "about:blank"}
    if frame.startswith("base:"):
        frame = h.server.base + frame[5:]
    elif frame.startswith("other:"):
        frame = h.server.other + frame[6:]
    if frame in ("blob", "data"):
        assert c["frame_url"].startswith(f"{frame}:"), c["frame_url"]
    else:
        assert c["frame_url"] == expect.get(frame, frame)
    if channel == "keepalive":  # sent on unload: the tab may already show the next page
        assert c["tab_url"] in (url, f"{h.server.base}/blank")
    else:
        assert c["tab_url"] == expect.get(tab, tab)
    if tab == "popup":
        assert c["opener_url"] == url
    if ttype:
        assert c["target_type"] == ttype
    assert c["action"] == "blocked"


async def _count_paused(h: Harness, run_dir: Path, narrow: bool) -> tuple[dict, int]:
    icpt = Interceptor(make_spec(channel_rules(h.server)), run_dir, narrow=narrow)
    await icpt.attach(h.browser.ws_url)
    ctx = await h.pw_browser.new_context()
    try:
        page = await ctx.new_page()
        await page.goto(f"{h.server.base}/ch/redirect_307")
        await page.evaluate("Promise.all([...Array(20).keys()].map(i => fetch('/asset/' + i)))")
        await page.click("#go")
        assert await wait_until(lambda: bool(icpt.catches))
    finally:
        await ctx.close()
        await icpt.close()
    return icpt.stats, len(icpt.catches)


def test_narrowing_pauses_only_what_can_match_and_keeps_redirects(h, tmp_path):
    narrow, caught_narrow = h.run(_count_paused(h, tmp_path / "narrow", True))
    wide, caught_wide = h.run(_count_paused(h, tmp_path / "wide", False))
    assert caught_narrow == caught_wide == 1  # the POST 307-redirected to the terminal URL is caught either way
    assert wide["paused"] >= 22 and narrow["paused"] <= 2, (narrow, wide)


def test_fulfill_answers_the_page_and_server_sees_nothing(h, tmp_path):
    from taskspec.model import Respond, Rule

    rule = Rule(index=0, url=f"{h.server.base}/submit/**", fields=("order",), equals={"confirm": "yes"},
                respond=Respond(action="fulfill", status=201, json={"booking": "FAKE-1"}))

    async def scenario() -> tuple[Interceptor, dict]:
        icpt = Interceptor(make_spec([rule]), tmp_path)
        await icpt.attach(h.browser.ws_url)
        ctx = await h.pw_browser.new_context()
        try:
            page = await ctx.new_page()
            await page.goto(f"{h.server.base}/ch/fetch")
            answer = await page.evaluate(
                "fetch('/submit/fulfill', {method: 'POST', headers: {'Content-Type': 'application/json'}, body:"
                " JSON.stringify({order: 'ORD-f', confirm: 'yes'})}).then(async r => ({status: r.status,"
                " body: await r.json()}))")
        finally:
            await ctx.close()
            await icpt.close()
        return icpt, answer

    before = len(h.server.log)
    icpt, answer = h.run(scenario())
    assert answer == {"status": 201, "body": {"booking": "FAKE-1"}}
    assert not [e for e in h.server.log[before:] if e["path"] == "/submit/fulfill"]
    catches, _ = read_jsonl(tmp_path / INTERCEPTIONS)
    assert [c["action"] for c in catches] == ["fulfilled"] and catches[0]["body"]["order"] == "ORD-f"


@pytest.mark.parametrize("channel", ["speculation_prefetch", "speculation_prerender"])
def test_speculation_rules_never_send_the_submission(h, channel, tmp_path):
    """Speculation-rules prefetch/prerender bypass DevTools Fetch (measured), so the launcher turns preloading off:
    the terminal GET named in the rules never leaves. The page fetches /marker 1 s after load: the bound we wait."""
    async def scenario() -> None:
        icpt = Interceptor(make_spec(channel_rules(h.server)), tmp_path)
        await icpt.attach(h.browser.ws_url)
        ctx = await h.pw_browser.new_context()
        try:
            page = await ctx.new_page()
            start = len(h.server.log)
            await page.goto(f"{h.server.base}/ch/{channel}")
            await page.evaluate("new Promise(r => setTimeout(r, 1000)).then(() => fetch('/marker'))")
            assert await wait_until(lambda: any(e["path"] == "/marker" for e in h.server.log[start:]))
        finally:
            await ctx.close()
            await icpt.close()

    before = len(h.server.log)
    h.run(scenario())
    assert not [e for e in h.server.log[before:] if e["path"].startswith("/submit/")]


def test_secrets_never_reach_the_run_directory(h, tmp_path):
    """Cookie and authorization values are redacted in http.jsonl, http.har and interceptions.jsonl; password fields
    in bodies are masked."""
    async def scenario() -> None:
        icpt = Interceptor(make_spec(channel_rules(h.server)), tmp_path)
        await icpt.attach(h.browser.ws_url)
        ctx = await h.pw_browser.new_context()
        try:
            page = await ctx.new_page()
            await page.goto(f"{h.server.base}/ch/fetch")
            await page.evaluate("document.cookie = 'session=COOKIE-SECRET-1; path=/'")
            for confirm in ("no", "yes"):
                await page.evaluate(
                    "c => fetch('/submit/secret', {method: 'POST', headers: {'Content-Type': 'application/json',"
                    " Authorization: 'Bearer AUTH-SECRET-2'}, body: JSON.stringify({order: 'ORD-s', confirm: c,"
                    " password: 'PASS-SECRET-3'})}).catch(e => 0)", confirm)
            assert await wait_until(lambda: bool(icpt.catches))
        finally:
            await ctx.close()
            await icpt.close()

    h.run(scenario())
    seen = [e for e in h.server.log if e["path"] == "/submit/secret"]
    assert seen and "COOKIE-SECRET-1" in seen[0]["headers"].get("Cookie", "")  # the secrets were really sent
    files = {p.name: p.read_text() for p in tmp_path.iterdir() if p.is_file()}
    assert set(files) >= {"http.jsonl", "http.har", "interceptions.jsonl"}
    for name, text in files.items():
        for secret in ("COOKIE-SECRET-1", "AUTH-SECRET-2"):
            assert secret not in text, (name, secret)
    for name in ("http.jsonl", "interceptions.jsonl"):
        assert "PASS-SECRET-3" not in files[name] and "[redacted]" in files[name], name
