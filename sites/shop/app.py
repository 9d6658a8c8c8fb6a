"""shop — "Northwind Outfitters", an SPA storefront on a GraphQL API.

Terminal request: the batched POST /graphql holding the `PlaceOrder` operation, sent by the service worker
(/sw.js) on the page's behalf. Card entry lives in a cross-origin iframe from shop_pay (its tokenization POST is
not terminal). Coupon errors come back as GraphQL errors. Benign traffic: batched queries, TrackEvent, images.
"""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from sites.common import CTX_KEY, SiteContext, json_body, new_app, render_page
from sites.shop.catalog import product, product_svg
from sites.shop.graphql import resolve

STATIC = Path(__file__).parent / "static"
CART_COOKIE = "nw_cart"


async def shell(request: web.Request) -> web.Response:
    ctx: SiteContext = request.app[CTX_KEY]
    return render_page(ctx, STATIC, "index.html", pay_url=ctx.urls.get("shop_pay", ""))


async def service_worker(request: web.Request) -> web.Response:
    return web.Response(text=(STATIC / "sw.js").read_text(), content_type="application/javascript",
                        headers={"Cache-Control": "no-cache"})


async def graphql(request: web.Request) -> web.Response:
    ctx: SiteContext = request.app[CTX_KEY]
    carts = ctx.state.setdefault("carts", {})
    cid = request.cookies.get(CART_COOKIE)
    if cid not in carts:
        cid = ctx.new_id("cart_", 12)
        carts[cid] = {"id": cid, "lines": [], "coupon": None}
    body = json_body(await request.read())
    if isinstance(body, list):
        result = [resolve(ctx, carts[cid], op if isinstance(op, dict) else {}) for op in body]
    elif isinstance(body, dict):
        result = resolve(ctx, carts[cid], body)
    else:
        return web.json_response({"errors": [{"message": "Body must be a JSON object or list"}]}, status=400)
    resp = web.json_response(result)
    if request.cookies.get(CART_COOKIE) != cid:
        resp.set_cookie(CART_COOKIE, cid, path="/", samesite="Lax")
    return resp


async def image(request: web.Request) -> web.Response:
    p = product(request.match_info["slug"].removesuffix(".svg"))
    if not p:
        raise web.HTTPNotFound()
    return web.Response(text=product_svg(p), content_type="image/svg+xml")


async def ping(request: web.Request) -> web.Response:
    return web.json_response({"ok": True})


def make_app(ctx: SiteContext) -> web.Application:
    app = new_app(ctx)
    r = app.router
    for path in ("/", "/cart", "/checkout", "/product/{slug}", "/orders/{number}"):
        r.add_get(path, shell)
    r.add_get("/sw.js", service_worker)
    r.add_post("/graphql", graphql)
    r.add_get("/img/{slug}", image)
    r.add_get("/api/ping", ping)
    r.add_static("/static/", STATIC)
    return app
