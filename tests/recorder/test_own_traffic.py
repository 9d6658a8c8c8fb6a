"""The recorder's own traffic (the extension's channel socket, its worker) never reaches http.jsonl / http.har, and
its per-run token appears in no run file; the page's traffic (HTTP and its WebSocket) is still logged and the
terminal request still caught."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from playwright.async_api import async_playwright

from clawrec.taskfile import expand_sites, load_task
from interceptor.core import Interceptor
from rundir.records import read_jsonl
from recorder.session import Recording
from sites.drivers import drive
from tests.recorder.helpers import actions, wait_for

ROOT = Path(__file__).resolve().parents[2]


async def _run(run_dir: Path, urls: dict) -> dict:
    spec = expand_sites(load_task(str(ROOT / "specs" / "demo" / "social-status-update.yaml")), urls)
    rec = Recording(run_dir, task_id=spec.id, spec_sha256=spec.sha256, agent="script", video=False)
    await rec.start()
    config = json.loads((rec._tmp / "extension" / "config.json").read_text())  # what the extension was given
    icpt = Interceptor(spec, run_dir, rec.clock, files=list(spec.files), kill_browser=rec.browser.kill,
                       ignore_urls=rec.own_urls, secrets=rec.secrets)
    try:
        await icpt.attach(rec.browser.ws_url)
        assert await rec.wait_extension(30), "the extension never connected"
        async with async_playwright() as p:
            browser = await p.chromium.connect_over_cdp(rec.browser.http_url)
            page = browser.contexts[0].pages[0]
            page.set_default_timeout(30_000)
            await drive("social", page, urls, spec.user, {})
            await asyncio.wait_for(icpt.caught.wait(), 15)
            # the extension's batches reached the channel (so its socket did carry frames during the run)
            await wait_for(lambda: len(actions(run_dir)) >= 3, 30, what="actions over the channel")
            await browser.close()
    finally:
        await icpt.close()
        manifest = await rec.finalize("intercepted" if icpt.catches else "ok", "scripted run done")
    return {"manifest": manifest, "config": config, "ignored": icpt.http.ignored if icpt.http else 0}


def test_recorder_channel_not_logged_and_token_absent(sites, tmp_path):
    out = asyncio.run(_run(tmp_path, sites.urls))
    manifest, token, port = out["manifest"], out["config"]["token"], out["config"]["port"]
    assert manifest["status"] == "intercepted", manifest["stop_reason"]
    assert len(token) >= 16 and port
    channel = f"ws://127.0.0.1:{port}"
    own = f"chrome-extension://{manifest['extension_id']}/"
    for path in tmp_path.rglob("*"):  # no run file holds the token (text or binary)
        if path.is_file():
            assert token.encode() not in path.read_bytes(), f"{path.name} holds the channel token"

    assert out["ignored"] > 0  # the channel's frames were seen, and left out
    records, bad = read_jsonl(tmp_path / "http.jsonl")
    assert not bad
    assert not [r for r in records if str(r.get("url") or "").startswith((channel, own))]
    assert not [r for r in records if r.get("target_id") and r.get("target") == "service_worker"
                and str(r.get("url") or "").startswith("chrome-extension://")]
    har = json.loads((tmp_path / "http.har").read_text())
    assert not [e for e in har["log"]["entries"] if e["request"]["url"].startswith((channel, own))]

    # the page's own traffic is still there: documents, the API POST that was caught, the site's WebSocket
    site = sites.urls["social"]
    assert any(r.get("type") == "request" and r["url"].startswith(site) and r["resource_type"] == "Document"
               for r in records)
    assert any(r.get("type") == "request" and r["url"] == f"{site}api/posts" and r["intercepted"] == "blocked"
               for r in records)
    site_ws = [r for r in records if r.get("type") == "websocket" and str(r.get("url") or "").startswith(
        site.replace("http://", "ws://"))]
    assert site_ws, "the site's own WebSocket is no longer logged"
    assert any(e["request"]["url"] == f"{site}api/posts" for e in har["log"]["entries"])
