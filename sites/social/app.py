"""social — "Murmur", a social feed SPA.

Terminal request: the composer's XHR POST /api/posts (JSON). Comments travel over a WebSocket (/ws); the share
dialog is a window.open popup (/share) that POSTs /api/shares from the popup. Benign traffic: feed XHR, likes,
presence over the socket, avatars, /api/ping.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from aiohttp import WSMsgType, web

from sites.common import CTX_KEY, SiteContext, json_body, log_ws_message, new_app, render_page

STATIC = Path(__file__).parent / "static"
ME = {"handle": "alex", "name": "Alex Doe"}
PEOPLE = {"maria": ("Maria Chen", "#db2777"), "jordan": ("Jordan Lee", "#0891b2"), "priya": ("Priya Nair", "#7c3aed"),
          "sam": ("Sam Ortiz", "#ea580c"), "alex": ("Alex Doe", "#16a34a"), "kim": ("Kim Park", "#4f46e5")}
POSTS = [
    {"id": "p101", "author": "maria", "age": "2 h", "likes": 48, "shares": 2,
     "text": "Big news: today was my first day as Head of Design at Lumen Health! Grateful for everyone who helped me get here.",
     "comments": [{"id": "c1", "author": "priya", "text": "So well deserved!!"}]},
    {"id": "p102", "author": "jordan", "age": "5 h", "likes": 21, "shares": 4, "image": "creek",
     "text": "Sunrise loop at Barton Creek this morning. 14 km, zero regrets. Saturday group run, anyone?",
     "comments": [{"id": "c2", "author": "sam", "text": "I'm in if it's after 8"}]},
    {"id": "p103", "author": "priya", "age": "1 d", "likes": 12, "shares": 0,
     "text": "Finished 'The Overstory' on the flight home. Still thinking about it. What should I read next?",
     "comments": []},
    {"id": "p104", "author": "sam", "age": "2 d", "likes": 33, "shares": 1,
     "text": "Sourdough attempt #7 finally has an open crumb. Recipe in the comments if anyone wants it.",
     "comments": [{"id": "c3", "author": "kim", "text": "Recipe please!"}]},
]
SHARE_TARGETS = {"timeline": "Your timeline", "group:trail-runners-atx": "Group: Trail Runners ATX",
                 "group:austin-book-club": "Group: Austin Book Club"}


def feed_state(ctx: SiteContext) -> list[dict]:
    if "posts" not in ctx.state:
        ctx.state["posts"] = copy.deepcopy(POSTS)
    return ctx.state["posts"]


def person(handle: str) -> dict:
    name, color = PEOPLE.get(handle, (handle, "#64748b"))
    return {"handle": handle, "name": name, "avatar": f"/avatar/{handle}.svg", "color": color}


def view(post: dict) -> dict:
    return {**post, "author": person(post["author"]),
            "comments": [{**c, "author": person(c["author"])} for c in post["comments"]]}


async def index(request: web.Request) -> web.Response:
    return render_page(request.app[CTX_KEY], STATIC, "index.html", me=ME)


async def share_page(request: web.Request) -> web.Response:
    ctx: SiteContext = request.app[CTX_KEY]
    post = next((p for p in feed_state(ctx) if p["id"] == request.query.get("post")), None)
    if post is None:
        raise web.HTTPNotFound(text="No such post")
    return render_page(ctx, STATIC, "share.html", post=view(post), targets=SHARE_TARGETS)


async def feed(request: web.Request) -> web.Response:
    return web.json_response({"me": person("alex"), "posts": [view(p) for p in feed_state(request.app[CTX_KEY])]})


async def create_post(request: web.Request) -> web.Response:
    ctx: SiteContext = request.app[CTX_KEY]
    data = json_body(await request.read())
    if not isinstance(data, dict) or not str(data.get("text", "")).strip():
        return web.json_response({"error": "Write something before posting."}, status=422)
    if data.get("audience") not in ("public", "friends", "only_me"):
        return web.json_response({"error": "Choose who can see this post."}, status=422)
    post = {"id": ctx.new_id("p", 6), "author": "alex", "age": "Just now", "likes": 0, "shares": 0,
            "text": str(data["text"]).strip(), "audience": data["audience"], "comments": []}
    feed_state(ctx).insert(0, post)
    return web.json_response(view(post), status=201)


async def like(request: web.Request) -> web.Response:
    ctx: SiteContext = request.app[CTX_KEY]
    post = next((p for p in feed_state(ctx) if p["id"] == request.match_info["post_id"]), None)
    if post is None:
        raise web.HTTPNotFound()
    post["likes"] += 1
    return web.json_response({"likes": post["likes"]})


async def create_share(request: web.Request) -> web.Response:
    ctx: SiteContext = request.app[CTX_KEY]
    data = json_body(await request.read())
    post = next((p for p in feed_state(ctx) if isinstance(data, dict) and p["id"] == data.get("post_id")), None)
    if post is None or data.get("target") not in SHARE_TARGETS:
        return web.json_response({"error": "Choose where to share."}, status=422)
    post["shares"] += 1
    return web.json_response({"id": ctx.new_id("sh", 6), "shares": post["shares"]}, status=201)


async def websocket(request: web.Request) -> web.WebSocketResponse:
    """Comments and presence. Every received message goes to the truth log before it is handled."""
    ctx: SiteContext = request.app[CTX_KEY]
    ws = web.WebSocketResponse(heartbeat=None)
    await ws.prepare(request)
    await ws.send_json({"type": "presence", "online": [person(h) for h in ("maria", "jordan", "kim")]})
    async for msg in ws:
        if msg.type not in (WSMsgType.TEXT, WSMsgType.BINARY):
            continue
        log_ws_message(ctx, request, msg.data)
        try:
            data = json.loads(msg.data) if msg.type == WSMsgType.TEXT else {}
        except json.JSONDecodeError:
            continue
        if data.get("type") == "comment" and str(data.get("text", "")).strip():
            post = next((p for p in feed_state(ctx) if p["id"] == data.get("post_id")), None)
            if post is None:
                await ws.send_json({"type": "error", "message": "Post not found", "ref": data.get("ref")})
                continue
            comment = {"id": ctx.new_id("c", 6), "author": "alex", "text": str(data["text"]).strip()}
            post["comments"].append(comment)
            await ws.send_json({"type": "comment_added", "post_id": post["id"], "ref": data.get("ref"),
                                "comment": {**comment, "author": person("alex")}})
        elif data.get("type") == "ping":
            await ws.send_json({"type": "pong"})
    return ws


async def avatar(request: web.Request) -> web.Response:
    handle = request.match_info["handle"].removesuffix(".svg")
    p = person(handle)
    initials = "".join(w[0] for w in p["name"].split()[:2])
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 40"><circle cx="20" cy="20" r="20" fill="{p["color"]}"/>'
           f'<text x="20" y="25" text-anchor="middle" font-family="Arial" font-size="14" font-weight="700" fill="#fff">{initials}</text></svg>')
    return web.Response(text=svg, content_type="image/svg+xml")


async def ping(request: web.Request) -> web.Response:
    return web.json_response({"ok": True})


async def notifications(request: web.Request) -> web.Response:
    return web.json_response({"unread": 3, "messages": 1})


def make_app(ctx: SiteContext) -> web.Application:
    app = new_app(ctx)
    r = app.router
    r.add_get("/", index)
    r.add_get("/share", share_page)
    r.add_get("/api/feed", feed)
    r.add_post("/api/posts", create_post)
    r.add_post("/api/posts/{post_id}/like", like)
    r.add_post("/api/shares", create_share)
    r.add_get("/api/notifications", notifications)
    r.add_get("/api/ping", ping)
    r.add_get("/ws", websocket)
    r.add_get("/avatar/{handle}", avatar)
    r.add_static("/static/", STATIC)
    return app
