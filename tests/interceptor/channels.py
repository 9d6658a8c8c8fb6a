"""The adversarial test site: one page per submission channel, served on 127.0.0.1 (and as `localhost`, a second
site, for cross-site iframes). Every request it receives is logged in memory: that log is the truth.

Each channel submits {order: "ORD-<channel>", confirm: "yes"} (terminal, must be caught) to /submit/<channel>; many
first send the same with confirm "no" (a draft, must reach the server: no false positive).
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any

from aiohttp import WSMsgType, web

TERMINAL = re.compile(rb'confirm"?\s*[:=]\s*"?yes|name="confirm"\r\n\r\nyes')


def payload(channel: str, confirm: str) -> dict[str, str]:
    return {"order": f"ORD-{channel}", "confirm": confirm}


def _js(channel: str, confirm: str) -> str:
    return json.dumps(payload(channel, confirm))


def _qs(channel: str, confirm: str) -> str:
    return f"order=ORD-{channel}&confirm={confirm}"


def page(body: str, script: str = "") -> str:
    return (f"<!doctype html><html><head><meta charset=utf-8><title>t</title></head><body>{body}"
            f"<script>{script}</script></body></html>")


def channel_pages(other: str) -> dict[str, str]:
    """channel -> HTML of its page (served at /ch/<channel>); `other` is the cross-site origin."""
    def fj(ch: str, method: str = "POST") -> str:
        url = f"/submit/{ch}"
        return (f"async function go(){{ await fetch('{url}', {{method:'{method}', headers:{{'Content-Type':"
                f"'application/json'}}, body: JSON.stringify({_js(ch, 'no')})}}); "
                f"fetch('{url}', {{method:'{method}', headers:{{'Content-Type':'application/json'}}, "
                f"body: JSON.stringify({_js(ch, 'yes')})}}).catch(e => window.__err = String(e)); }}")
    btn = "<button id=go onclick='go()'>go</button>"
    pages = {
        "fetch": page(btn, fj("fetch")),
        "put": page(btn, fj("put", "PUT")),
        "patch": page(btn, fj("patch", "PATCH")),
        "xhr": page(btn, "function send(c, done){ const x = new XMLHttpRequest(); x.open('POST', '/submit/xhr');"
                    " x.setRequestHeader('Content-Type', 'application/x-www-form-urlencoded'); x.onloadend = done;"
                    f" x.send('order=ORD-xhr&confirm=' + c); }}"
                    " function go(){ send('no', () => send('yes')); }"),
        "form_post": page("<form method=post action='/submit/form_post'><input name=order value=ORD-form_post>"
                          "<input name=confirm value=yes><button id=go>go</button></form>"),
        "form_blank": page("<form method=post action='/submit/form_blank' target=_blank>"
                           "<input name=order value=ORD-form_blank><input name=confirm value=yes>"
                           "<button id=go>go</button></form>"),
        "beacon": page(btn, "function go(){ navigator.sendBeacon('/submit/beacon', new URLSearchParams("
                            f"'{_qs('beacon', 'no')}')); navigator.sendBeacon('/submit/beacon', "
                            f"new URLSearchParams('{_qs('beacon', 'yes')}')); }}"),
        "keepalive": page("<a id=go href='/blank'>leave</a>",
                          "addEventListener('pagehide', () => fetch('/submit/keepalive', {method: 'POST', "
                          "keepalive: true, headers: {'Content-Type': 'application/json'}, body: JSON.stringify("
                          f"{_js('keepalive', 'yes')})}}));"),
        "popup": page(btn, f"function go(){{ window.open('/submit/popup?{_qs('popup', 'yes')}', '_blank'); }}"),
        "get_query": page(btn, f"async function go(){{ await fetch('/submit/get_query?{_qs('get_query', 'no')}');"
                               f" fetch('/submit/get_query?{_qs('get_query', 'yes')}').catch(e => 0); }}"),
        "xsite_iframe": page(f"<iframe id=f src='{other}/frame/xsite_iframe'></iframe>"),
        "nested_iframe": page(f"<iframe id=f src='{other}/frame/nest_outer'></iframe>"),
        "srcdoc_iframe": page("<iframe id=f srcdoc=\"<button id=go onclick='go()'>go</button><script>"
                              + fj("srcdoc_iframe").replace('"', "&quot;") + "</script>\"></iframe>"),
        "dedicated_worker": page(btn, "const w = new Worker('/worker.js?ch=dedicated_worker');"
                                      " function go(){ w.postMessage('go'); }"),
        "shared_worker": page(btn, "const w = new SharedWorker('/worker.js?ch=shared_worker&shared=1');"
                                   " w.port.start(); function go(){ w.port.postMessage('go'); }"),
        "service_worker": page(btn, "window.ready = navigator.serviceWorker.register('/sw.js?ch=service_worker')"
                                    ".then(() => navigator.serviceWorker.ready);"
                                    " async function go(){ const r = await window.ready;"
                                    " r.active.postMessage('go'); }"),
        "redirect_307": page(btn, "async function go(){ fetch('/redirect307', {method: 'POST', headers: "
                                  "{'Content-Type': 'application/json'}, body: JSON.stringify("
                                  f"{_js('redirect_307', 'yes')})}}).catch(e => 0); }}"),
        "graphql_batch": page(btn, "async function go(){ const h = {'Content-Type': 'application/json'};"
                                   " await fetch('/submit/graphql_batch', {method: 'POST', headers: h, body:"
                                   " JSON.stringify([{operationName: 'Noop', variables: {}},"
                                   f" Object.assign({{operationName: 'PlaceOrder'}}, {_js('graphql_batch', 'no')})])}});"
                                   " fetch('/submit/graphql_batch', {method: 'POST', headers: h, body:"
                                   " JSON.stringify([{operationName: 'Noop', variables: {}},"
                                   f" Object.assign({{operationName: 'PlaceOrder'}}, {_js('graphql_batch', 'yes')})])}})"
                                   ".catch(e => 0); }"),
        "multipart_form": page("<form method=post enctype=multipart/form-data action='/submit/multipart_form'>"
                               "<input type=file name=resume><input name=order value=ORD-multipart_form>"
                               "<input name=confirm value=yes><button id=go>go</button></form>"),
        "multipart_fetch": page("<input type=file id=file>" + btn,
                                "function go(){ const fd = new FormData(); fd.append('resume',"
                                " document.getElementById('file').files[0]); fd.append('order',"
                                " 'ORD-multipart_fetch'); fd.append('confirm', 'yes');"
                                " fetch('/submit/multipart_fetch', {method: 'POST', body: fd}).catch(e => 0); }"),
        "websocket": page(btn, "const ws = new WebSocket('ws://' + location.host + '/ws'); window.wsOpen = new"
                               " Promise(r => ws.onopen = r); async function go(){ await window.wsOpen;"
                               f" ws.send(JSON.stringify({_js('websocket', 'no')}));"
                               f" ws.send(JSON.stringify({_js('websocket', 'yes')})); }}"),
        # a pristine send() borrowed from a fresh about:blank iframe must be guarded too
        "websocket_borrowed": page(btn, "const ws = new WebSocket('ws://' + location.host + '/ws'); window.wsOpen ="
                                        " new Promise(r => ws.onopen = r); async function go(){ await window.wsOpen;"
                                        " const f = document.createElement('iframe'); document.body.append(f);"
                                        " const send = f.contentWindow.WebSocket.prototype.send;"
                                        f" send.call(ws, JSON.stringify({_js('websocket_borrowed', 'no')}));"
                                        f" send.call(ws, JSON.stringify({_js('websocket_borrowed', 'yes')})); }}"),
        "websocket_stream": page(btn, "async function go(){ const wss = new WebSocketStream('ws://' + location.host +"
                                      " '/ws'); const {writable} = await wss.opened; const w = writable.getWriter();"
                                      f" await w.write(JSON.stringify({_js('websocket_stream', 'no')}));"
                                      f" await w.write(JSON.stringify({_js('websocket_stream', 'yes')})); }}"),
        # GET submissions the browser itself may send ahead of time
        "link_prefetch": page(btn + f"<link rel=prefetch href='/submit/link_prefetch?{_qs('link_prefetch', 'yes')}'>",
                              "function go(){}"),
        "speculation_prefetch": page(btn + '<script type=speculationrules>{"prefetch": [{"source": "list", "urls":'
                                     f' ["/submit/speculation_prefetch?{_qs("speculation_prefetch", "yes")}"]}}]}}'
                                     "</script>", "function go(){}"),
        "speculation_prerender": page(btn + '<script type=speculationrules>{"prerender": [{"source": "list", "urls":'
                                      f' ["/submit/speculation_prerender?{_qs("speculation_prerender", "yes")}"]}}]}}'
                                      "</script>", "function go(){}"),
        "websocket_worker": page(btn, "const w = new Worker('/wsworker.js'); function go(){ w.postMessage('go'); }"),
        # opaque or blob origins: simple (no-preflight) urlencoded POSTs to an absolute URL
        "blob_worker": page(btn, "const src = `const go = async () => { for (const c of ['no', 'yes']) await fetch("
                                 "'${location.origin}/submit/blob_worker', {method: 'POST', body: new URLSearchParams("
                                 "'order=ORD-blob_worker&confirm=' + c)}).catch(e => 0); }; onmessage = go;`;"
                                 " const w = new Worker(URL.createObjectURL(new Blob([src], {type: 'text/javascript'})));"
                                 " function go(){ w.postMessage('go'); }"),
        "data_iframe": page("<iframe id=f></iframe>", "document.getElementById('f').src = 'data:text/html,' +"
                            " encodeURIComponent(`<button id=go onclick=\"go()\">go</button><script>async function"
                            " go(){ for (const c of ['no', 'yes']) await fetch('${location.origin}/submit/data_iframe',"
                            " {method: 'POST', mode: 'no-cors', body: new URLSearchParams('order=ORD-data_iframe&confirm='"
                            " + c)}).catch(e => 0); }<\\/script>`);"),
        "sandbox_iframe": page("<iframe id=f sandbox='allow-scripts allow-forms' src='/frame/sandboxed'></iframe>"),
        "cdp_new_tab": page("the test opens the submission with Target.createTarget"),
        # a link opened in a new tab or window by its modifier (no opener): Chrome sends the request before any
        # client can prepare the new tab; only the browser-level Fetch stops it (measured: page-level alone leaks)
        **{ch: page(f"<a id=go href='/submit/{ch}?{_qs(ch, 'yes')}'>open</a>")
           for ch in ("ctrl_click_link", "middle_click_link", "shift_click_link")},
        # fault injection: submits a draft and a terminal request every 10 ms, forever
        "loop": page("loop", "let n = 0; setInterval(() => { n++; const h = {'Content-Type': 'application/json'};"
                             " fetch('/submit/loop', {method: 'POST', headers: h, body: JSON.stringify({order:"
                             " 'ORD-loop', confirm: 'no', n})}).catch(e => 0); fetch('/submit/loop', {method:"
                             " 'POST', headers: h, body: JSON.stringify({order: 'ORD-loop', confirm: 'yes', n})})"
                             ".catch(e => 0); }, 10);"),
    }
    return pages


FRAMES = {
    "xsite_iframe": page("<button id=go onclick='go()'>go</button>",
                         "async function go(){ await fetch('/submit/xsite_iframe', {method: 'POST', headers:"
                         f" {{'Content-Type': 'application/json'}}, body: JSON.stringify({_js('xsite_iframe', 'no')})}});"
                         " fetch('/submit/xsite_iframe', {method: 'POST', headers: {'Content-Type':"
                         f" 'application/json'}}, body: JSON.stringify({_js('xsite_iframe', 'yes')})}}).catch(e => 0); }}"),
    "sandboxed": page("<button id=go onclick='go()'>go</button>",
                      "async function go(){ for (const c of ['no', 'yes']) await fetch(location.href.replace("
                      "'/frame/sandboxed', '/submit/sandbox_iframe'), {method: 'POST', mode: 'no-cors', body: new"
                      " URLSearchParams('order=ORD-sandbox_iframe&confirm=' + c)}).catch(e => 0); }"),
    "nest_inner": page("<form method=post action='/submit/nested_iframe'><input name=order value=ORD-nested_iframe>"
                       "<input name=confirm value=yes><button id=go>go</button></form>"),
}

WORKER_JS = """
const ch = new URL(location.href).searchParams.get('ch');
function submit(confirm) {
  return fetch('/submit/' + ch, {method: 'POST', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({order: 'ORD-' + ch, confirm})});
}
async function go() { await submit('no'); submit('yes').catch(e => 0); }
onmessage = () => go();
onconnect = (e) => { const port = e.ports[0]; port.onmessage = () => go(); port.start(); };
"""

WS_WORKER_JS = """
const ws = new WebSocket('ws://' + location.host + '/ws');
const open = new Promise(r => ws.onopen = r);
onmessage = async () => { await open;
  ws.send(JSON.stringify({order: 'ORD-websocket_worker', confirm: 'no'}));
  ws.send(JSON.stringify({order: 'ORD-websocket_worker', confirm: 'yes'})); };
"""

SW_JS = WORKER_JS + """
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
"""


class ChannelServer:
    """aiohttp app serving the channel pages; `log` holds every request received, in order."""

    def __init__(self) -> None:
        self.log: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.port = 0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def other(self) -> str:
        return f"http://localhost:{self.port}"

    def _record(self, entry: dict[str, Any]) -> None:
        with self.lock:
            self.log.append(entry)

    def entries(self, path_prefix: str = "") -> list[dict[str, Any]]:
        with self.lock:
            return [e for e in self.log if e["path"].startswith(path_prefix)]

    def terminal(self) -> list[dict[str, Any]]:
        """Terminal submissions that reached the server (must stay empty)."""
        return [e for e in self.entries("/submit/") + self.entries("/redirect307") + self.entries("/ws")
                if TERMINAL.search(e["body"]) or "confirm=yes" in e["query"]]

    async def handle(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        if path == "/ws":
            ws = web.WebSocketResponse()
            await ws.prepare(request)
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    self._record({"method": "WS", "path": "/ws", "query": "", "body": msg.data.encode(),
                                  "host": request.host})
            return ws
        body = await request.read()
        self._record({"method": request.method, "path": path, "query": request.query_string, "body": body,
                      "host": request.host, "headers": dict(request.headers)})
        if path.startswith("/ch/"):
            html = channel_pages(self.other).get(path[4:])
            return web.Response(text=html, content_type="text/html") if html else web.Response(status=404)
        if path == "/frame/nest_outer":
            return web.Response(text=page(f"<iframe id=inner src='{self.base}/frame/nest_inner'></iframe>"),
                                content_type="text/html")
        if path.startswith("/frame/"):
            return web.Response(text=FRAMES[path[7:]], content_type="text/html")
        if path == "/worker.js":
            return web.Response(text=WORKER_JS, content_type="application/javascript")
        if path == "/wsworker.js":
            return web.Response(text=WS_WORKER_JS, content_type="application/javascript")
        if path == "/sw.js":
            return web.Response(text=SW_JS, content_type="application/javascript")
        if path == "/redirect307":
            raise web.HTTPTemporaryRedirect("/submit/redirect_307")
        if path.startswith("/submit/"):
            return web.json_response({"ok": True})
        return web.Response(text=page("blank"), content_type="text/html")

    async def start(self) -> web.AppRunner:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self.handle)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]
        return runner
