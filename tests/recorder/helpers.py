"""Recorder test fixtures: a tiny aiohttp test site (two origins for a cross-site iframe) and helpers."""

from __future__ import annotations

import asyncio
import json
import subprocess
from contextlib import asynccontextmanager
from pathlib import Path

from aiohttp import web

from rundir.records import read_jsonl

MAIN = """<!doctype html><html><head><title>Recorder test</title></head><body>
<h1>Recorder test</h1>
<button id="go" onclick="document.getElementById('out').textContent='clicked go'">Go</button>
<div class="row"><button class="b">Second</button><span><button class="b">Third <b>bold</b></button></span></div>
<p id="out"></p>
<form id="login" action="/login" method="post" onsubmit="event.preventDefault(); fetch('/api/log', {method:'POST'})">
  <label for="user">User name</label><input id="user" name="user">
  <label>Password <input type="password" name="pw" class="pw"></label>
  <input name="pin" autocomplete="one-time-password new-password" aria-label="PIN">
  <select name="cabin"><option value="eco">Economy</option><option value="biz">Business</option></select>
  <button type="submit">Sign in</button>
</form>
<iframe id="child" src="http://localhost:{port}/child" width="400" height="120"></iframe>
<div style="height:3000px"></div>
</body></html>"""

CHILD = """<!doctype html><html><body style="margin:0"><button id="inner">Inner button</button></body></html>"""

SPOOF = """<!doctype html><html><body><p id="state">starting</p><script>
const port = new URLSearchParams(location.search).get('port');
const results = [];
function attempt(first) {
  return new Promise((resolve) => {
    const ws = new WebSocket('ws://127.0.0.1:' + port + '/');
    ws.onopen = () => {
      ws.send(JSON.stringify(first));
      ws.send(JSON.stringify({type: 'events', token: first.token, client: 'evil', batch: 1,
        events: [{type: 'spoofed', ts: Date.now(), marker: 'SPOOF-MARKER'}]}));
    };
    ws.onclose = (e) => { results.push(e.code); resolve(); };
    ws.onerror = () => {};
    setTimeout(() => { try { ws.close(); } catch (e) {} }, 3000);
  });
}
(async () => {
  await attempt({type: 'hello', client: 'evil'});
  await attempt({type: 'hello', client: 'evil', token: 'guessed-token'});
  await attempt({type: 'events', client: 'evil', batch: 1, events: [{type: 'spoofed', marker: 'SPOOF-MARKER'}]});
  document.getElementById('state').textContent = 'done ' + results.join(',');
})();
</script></body></html>"""


@asynccontextmanager
async def serve_test_site():
    """Serve the test pages on 127.0.0.1:PORT (the iframe is loaded cross-site from localhost:PORT)."""
    hits: list[tuple[str, str]] = []

    async def page(request: web.Request) -> web.Response:
        hits.append((request.method, request.path))
        body = {"/": MAIN.replace("{port}", str(request.url.port)), "/child": CHILD, "/spoof": SPOOF}
        if request.path not in body:
            return web.json_response({"ok": True})
        return web.Response(text=body[request.path], content_type="text/html")

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", page)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}", hits
    finally:
        await runner.cleanup()


async def wait_for(predicate, timeout: float = 15.0, what: str = "condition"):
    """Poll `predicate()` until truthy (events, not sleeps, drive the tests; this only bounds the wait)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await asyncio.sleep(0.05)


def actions(run_dir: Path, kind: str | None = None) -> list[dict]:
    recs, _ = read_jsonl(run_dir / "actions.jsonl")
    return [r for r in recs if kind is None or r.get("type") == kind]


def assert_all_jsonl_parse(run_dir: Path) -> None:
    files = list(run_dir.rglob("*.jsonl"))
    assert files
    for path in files:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                json.loads(line)  # raises with the file's line on failure


def assert_video_plays(path: Path) -> float:
    """Decode the whole file; ffmpeg must report no error. Returns the duration."""
    assert path.exists(), f"{path} missing"
    proc = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-f", "null", "-"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0 and not proc.stderr.strip(), proc.stderr
    probe = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "json", str(path)],
                           capture_output=True, text=True, timeout=60, check=True)
    return float(json.loads(probe.stdout)["format"]["duration"])


def assert_video_covers_run(path: Path, manifest: dict) -> None:
    """The video plays, starts before the agent could act (ready_t) and lasts as long as the run it covers (first
    frame → finalize) within 10 %; more only by what ffmpeg grabbed while it was being stopped (video_end_t).
    Start-up before the first frame can take seconds on a loaded machine; the recorder reports ready only after
    ffmpeg's first frame, so no agent action is missed."""
    duration = assert_video_plays(path)
    assert manifest["video_start_t"] <= manifest["ready_t"]
    run = manifest["duration"] - manifest["video_start_t"]
    grabbed = manifest["video_end_t"] - manifest["video_start_t"]
    assert 0.9 * run <= duration <= max(1.1 * run, grabbed + 0.3), (duration, run, grabbed)  # + frame rounding
