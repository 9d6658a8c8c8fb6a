"""The small page a person at a recorded browser works with: the task (instruction, user details, files), the
requests hold mode is holding (Allow / Block, each with its countdown) and the decisions made (also the timeouts),
and a Done button. With hold mode off there is no hold section.

Why a page of our own: an agent gets the instruction AND the user's details and files; a person must see the same
("use my details below"), also remotely over noVNC, where the terminal may be out of reach. Served with aiohttp on
127.0.0.1, port 0, under a per-run random token (the URL is the only key); its traffic is the recorder's own (never
held, never logged as the page's).
"""

from __future__ import annotations

import asyncio
import html
import json
import secrets
from pathlib import Path
from typing import Any

from aiohttp import web

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>clawrec: your task</title>
<style>body{{font:15px system-ui,sans-serif;margin:24px;max-width:900px}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:4px 8px;text-align:left}}button{{font-size:15px;padding:6px 14px;margin:2px}}
#done{{background:#1a7f37;color:#fff;font-size:18px}}.held{{background:#fff4d6;padding:8px;margin:6px 0}}
.left{{font-weight:bold;margin-left:8px}}.decided{{color:#555;margin:2px 0}}button.block{{background:#b42318;color:#fff}}
</style></head><body><h1>Your task</h1><p id="instruction">{instruction}</p>
<h2>Your details</h2>{user}<h2>Files</h2>{files}{vnc}{hold}
<h2>Finished?</h2><button id="done">Done</button> <span id="status"></span>
<script>
const base = location.pathname.replace(/\\/$/, "");
async function post(path, body) {{
  const r = await fetch(base + path, {{method: "POST", headers: {{"Content-Type": "application/json"}},
                                      body: JSON.stringify(body || {{}})}});
  return r.json();
}}
function row(h) {{  // built once per request (a click is never lost to a redraw); its countdown is updated in place
  const d = document.createElement("div"); d.className = "held"; d.id = "held-" + h.id;
  d.append("#" + h.id + " " + h.method + " " + h.url + "  " + h.fields.map(f => f[0] + "=" + f[1]).join(", "));
  for (const [label, decision] of [["Allow", "allow"], ["Block (this is the final submission)", "block"]]) {{
    const b = document.createElement("button"); b.textContent = label; b.className = decision;
    b.onclick = () => post("/decide", {{id: h.id, decision}}).then(poll); d.appendChild(b);
  }}
  const left = document.createElement("span"); left.className = "left"; d.appendChild(left);
  return d;
}}
async function poll() {{
  const s = await (await fetch(base + "/state")).json();
  if (s.done) document.getElementById("status").textContent = "Session ended.";
  const box = document.getElementById("held");
  if (!box) return;
  const ids = new Set(s.held.map(h => "held-" + h.id));
  for (const el of [...box.querySelectorAll(".held")]) if (!ids.has(el.id)) el.remove();
  for (const h of s.held) {{
    const el = document.getElementById("held-" + h.id) || box.appendChild(row(h));
    el.querySelector(".left").textContent = "blocked in " + Math.ceil(h.left) + " s without an answer";
  }}
  document.getElementById("none").hidden = s.held.length > 0;
  document.getElementById("decided").replaceChildren(...s.decided.map(d => {{
    const p = document.createElement("p"); p.className = "decided"; p.id = "decided-" + d.id;
    p.textContent = "#" + d.id + " " + d.method + " " + d.url + ": " + d.text; return p; }}));
}}
document.getElementById("done").onclick = () => post("/done").then(() => {{
  document.getElementById("status").textContent = "Session ended."; }});
setInterval(poll, 500); poll();
</script></body></html>"""

HOLD = """<h2>Held requests</h2><p>Requests that could change something wait here for your decision: Allow lets one
through; Block stops it for good and marks it as the task's final submission. No answer within {timeout:g} s blocks
it.</p><div id="held"><p id="none">none</p></div><h3>Decided</h3><div id="decided"></div>"""


def _user_table(user: dict[str, Any]) -> str:
    if not user:
        return "<p>(none)</p>"
    rows = "".join(f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(str(v))}</td></tr>" for k, v in user.items())
    return f'<table id="user">{rows}</table>'


class ControlPage:
    """`await start()`, then `url` (with its token) is the page; `done` is set by the Done button; `hold` (an
    interceptor.hold.Hold or None) lists the held requests and takes the page's decisions."""

    def __init__(self, instruction: str, user: dict[str, Any], files: list[str], hold: Any = None) -> None:
        self.instruction, self.user, self.files, self.hold = instruction, dict(user), [Path(f) for f in files], hold
        self.token = secrets.token_urlsafe(18)
        self.done = asyncio.Event()
        self.vnc_url = ""
        self._runner: web.AppRunner | None = None
        self.origin = ""

    @property
    def url(self) -> str:
        return f"{self.origin}/{self.token}/"

    async def start(self) -> "ControlPage":
        app = web.Application()
        prefix = f"/{self.token}"
        app.router.add_get(prefix + "/", self._page)
        app.router.add_get(prefix + "/state", self._state)
        app.router.add_post(prefix + "/decide", self._decide)
        app.router.add_post(prefix + "/done", self._done)
        app.router.add_get(prefix + "/files/{n}", self._file)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.origin = f"http://127.0.0.1:{port}"
        return self

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _page(self, _req: web.Request) -> web.Response:
        files = "".join(f'<li><a href="files/{n}">{html.escape(f.name)}</a></li>' for n, f in enumerate(self.files))
        vnc = f'<p>Remote browser: <a href="{html.escape(self.vnc_url)}">noVNC</a></p>' if self.vnc_url else ""
        hold = HOLD.format(timeout=self.hold.timeout) if self.hold is not None else ""  # hold off: no section
        body = PAGE.format(instruction=html.escape(self.instruction), user=_user_table(self.user),
                           files=f"<ul>{files}</ul>" if files else "<p>(none)</p>", vnc=vnc, hold=hold)
        return web.Response(text=body, content_type="text/html", headers={"Cache-Control": "no-store"})

    async def _state(self, _req: web.Request) -> web.Response:
        state = self.hold.state() if self.hold is not None else {"held": [], "decided": []}
        return web.json_response({**state, "done": self.done.is_set()})

    async def _decide(self, req: web.Request) -> web.Response:
        try:
            data = json.loads(await req.text())
            held_id, decision = int(data["id"]), str(data["decision"])
        except (ValueError, KeyError, TypeError):
            return web.json_response({"error": "expected {id, decision}"}, status=400)
        if self.hold is None or decision not in ("allow", "block"):
            return web.json_response({"error": "nothing to decide"}, status=400)
        held = self.hold.decide(held_id, decision, "page")
        return web.json_response({"ok": held is not None})

    async def _done(self, _req: web.Request) -> web.Response:
        self.done.set()
        return web.json_response({"ok": True})

    async def _file(self, req: web.Request) -> web.StreamResponse:
        try:
            path = self.files[int(req.match_info["n"])]
        except (ValueError, IndexError):
            raise web.HTTPNotFound() from None
        return web.FileResponse(path)
