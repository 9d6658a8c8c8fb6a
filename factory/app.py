"""The server of a generated site (one aiohttp app per origin, served by sites/' machinery): static files, the
generic API the page talks to, and the truth: besides the request log every site keeps (sites.common), each
request that satisfies a subgoal, a distractor or the terminal predicate adds an event record
`{event: subgoal|distractor|terminal, factory_site, name}` to the same log."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path
from typing import Any, Callable
from urllib.parse import parse_qsl

from aiohttp import WSMsgType, web

from sites.common import SiteContext, clock_script, log_ws_message, new_app
from sites.truthlog import parse_multipart

STATIC = {"app.js": "application/javascript", "sw.js": "application/javascript", "popup.js": "application/javascript",
          "pay.js": "application/javascript", "style.css": "text/css", "popup.html": "text/html"}
API_PREFIXES = ("/api/", "/graphql", "/aura", "/v1/", "/analytics/")


def _norm(v: Any) -> str | None:
    if isinstance(v, bool):
        return "true" if v else "false"
    return None if v is None else str(v)


def _graphql(op: Any) -> dict[str, Any]:
    if isinstance(op, dict) and "operationName" in op:
        variables = op.get("variables") if isinstance(op.get("variables"), dict) else {}
        return {**variables, "operationName": op.get("operationName")}
    return op if isinstance(op, dict) else {}


def payloads(path: str, content_type: str, body: bytes, query: dict[str, str]) -> list[dict[str, Any]]:
    """The flat field dicts one request carries (a GraphQL batch or an Aura action list has several)."""
    ct = content_type.lower()
    if not body:
        return [dict(query)]
    if "json" in ct or body[:1] in (b"{", b"["):
        try:
            data = json.loads(body)
        except ValueError:
            return [dict(query)]
        return [_graphql(op) for op in data] if isinstance(data, list) else [_graphql(data)]
    if "multipart/form-data" in ct:
        return []  # read by the handler with request.post()
    form = dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
    if path == "/aura" and "message" in form:
        try:
            actions = json.loads(form["message"]).get("actions", [])
        except (ValueError, AttributeError):
            actions = []
        return [{**(a.get("params") or {}), "descriptor": a.get("descriptor")} for a in actions if isinstance(a, dict)]
    return [form]


def matches(pred: dict[str, Any], origin: str, method: str, path: str, items: list[dict[str, Any]]) -> bool:
    if pred["origin"] != origin or pred["method"] != method or pred["path"] != path:
        return False
    want = {k: _norm(v) for k, v in pred["equals"].items()}
    return not want or any(all(_norm(p.get(k)) == v for k, v in want.items()) for p in items)


class Truth:
    """Evaluates the site's predicates on what reached it and writes the events."""

    def __init__(self, ctx: SiteContext, config: dict[str, Any], origin: str) -> None:
        self.ctx, self.config, self.origin = ctx, config, origin

    def see(self, method: str, path: str, items: list[dict[str, Any]], failed: bool = False) -> None:
        """Events for one request; a request answered with an error changes no state (no subgoal)."""
        cfg, sid = self.config, self.config["id"]
        found = [("terminal", "terminal")] if matches(cfg["terminal"], self.origin, method, path, items) else []
        found += [("subgoal", s["name"]) for s in cfg["subgoals"]
                  if not failed and matches(s, self.origin, method, path, items)]
        found += [("distractor", d["kind"]) for d in cfg["distractors"]
                  if matches(d, self.origin, method, path, items)]
        for event, name in found:
            self.ctx.log.write({"site": self.ctx.name, "factory_site": sid, "event": event, "name": name,
                                "method": method, "path": path})


def make_app(site_dir: Path, origin: str) -> Callable[[SiteContext], web.Application]:
    """The app of one origin ("main" or "pay") of the generated site in `site_dir`."""
    config = json.loads((site_dir / "server.json").read_text(encoding="utf-8"))
    sid = config["id"]

    def build(ctx: SiteContext) -> web.Application:
        app = new_app(ctx)
        truth = Truth(ctx, config, origin)
        counter = {"n": 0}

        def page(name: str) -> web.Response:
            html = (site_dir / name).read_text(encoding="utf-8")
            island = {"urls": {k: v for k, v in ctx.urls.items() if k in (sid, f"{sid}_pay")}, "now": ctx.now.isoformat()}
            inject = clock_script(ctx.now_ms) + "<script>window.SITE=%s;</script>" % json.dumps(island)
            return web.Response(text=html.replace("<head>", "<head>" + inject, 1), content_type="text/html")

        async def socket(request: web.Request) -> web.StreamResponse:
            ws = web.WebSocketResponse()
            await ws.prepare(request)
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                log_ws_message(ctx, request, msg.data)
                try:
                    data = json.loads(msg.data)
                except ValueError:
                    data = {}
                truth.see("WS", request.path, [data] if isinstance(data, dict) else [])
                await ws.send_str(json.dumps({"ok": True}))
            return ws

        async def handle(request: web.Request) -> web.StreamResponse:
            path, method = request.path, request.method
            if path.startswith("/ws/") and origin == "main":
                return await socket(request)
            body = await request.read()
            ct = request.headers.get("Content-Type", "")
            if "multipart/form-data" in ct.lower():
                items = [{p["name"]: (p["filename"] if p["filename"] is not None else p["data"].decode("utf-8", "replace"))
                          for p in parse_multipart(body, ct)}]
            else:
                items = payloads(path, ct, body, {k: request.query[k] for k in request.query})
            first = bool(items) and _norm(items[0].get("attempt")) == "1"
            fail = (path == "/api/drafts" and first) or (path.endswith("/validate") and first and config["validate_503"])
            truth.see(method, path, items, failed=fail)
            if method == "GET" and path in ("/", "/index.html"):
                return page("pay.html" if origin == "pay" else "index.html")
            if method == "GET" and path.lstrip("/") in STATIC and origin == "main":
                return web.Response(body=(site_dir / path.lstrip("/")).read_bytes(),
                                    content_type=STATIC[path.lstrip("/")])
            if method == "GET" and origin == "pay" and path in ("/pay.html", "/pay.js", "/style.css"):
                return page("pay.html") if path == "/pay.html" else web.Response(
                    body=(site_dir / path.lstrip("/")).read_bytes(), content_type=STATIC[path.lstrip("/")])
            if not path.startswith(API_PREFIXES):
                return web.Response(status=404, text="not found")
            if config["latency_ms"]:
                await asyncio.sleep(config["latency_ms"] / 1000)
            if fail:
                return web.json_response({"error": "temporarily unavailable"}, status=500 if path == "/api/drafts" else 503)
            if path == "/api/csrf":
                counter["n"] += 1
                token = hashlib.sha256(f"{sid}:{counter['n']}".encode()).hexdigest()[:24]
                return web.json_response({"csrf_token": token})
            if request.headers.get("Sec-Fetch-Mode") == "navigate":  # a form's own submission: a page back
                return web.Response(text="<!doctype html><title>Done</title><p>Thank you.</p>", content_type="text/html")
            return web.json_response({"ok": True, "id": f"{sid}-{counter['n']}"})

        app.router.add_route("*", "/{tail:.*}", handle)
        return app

    return build


def apps_for(out: Path, ids: list[str]) -> tuple[dict[str, Callable[[SiteContext], web.Application]], dict[str, str]]:
    """Every origin of the listed sites of OUT: {name: app maker}, {name: host} (pay origins on localhost, so the
    payment frame is cross-site as well as cross-origin)."""
    apps, hosts = {}, {}
    for sid in ids:
        site_dir = out / "sites" / sid
        apps[sid] = make_app(site_dir, "main")
        if (site_dir / "pay.html").exists():
            apps[f"{sid}_pay"] = make_app(site_dir, "pay")
            hosts[f"{sid}_pay"] = "localhost"
    return apps, hosts
