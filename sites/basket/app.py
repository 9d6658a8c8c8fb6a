"""basket — "Potter & Pine", a server-rendered shop whose final request carries no task value (issue 33).

Shaped like a django-oscar guest checkout: a session cookie and a Django-style CSRF field (`csrfmiddlewaretoken`);
every step is a form POST answered with a 303 and kept in the server session: add to basket (`POST
/basket/add/<id>/`, one more of the product), the basket's formset (`POST /basket/`, `form-0-quantity`), the guest
e-mail (`POST /checkout/`, `username`), the shipping address (`POST /checkout/shipping-address/`: first_name,
last_name, line1, line4 (city), postcode, country). The terminal request, `POST /checkout/preview/`, carries only the
CSRF token and `action=place_order`: the order is made from the session. `GET /api/basket` answers the session's
pending order as JSON (what an environment's at_catch read sees: clawrec/environments/README.md).
"""

from __future__ import annotations

import hashlib
from typing import Any

from aiohttp import web

from sites.basket import pages
from sites.common import CTX_KEY, SiteContext, html_response, new_app

COOKIE = "sessionid"
PRODUCTS = {7: {"id": 7, "name": "Stoneware mug", "price": 14.0}, 9: {"id": 9, "name": "Linen tea towel", "price": 9.5}}
ADDRESS_FIELDS = ("first_name", "last_name", "line1", "line4", "postcode", "country")
COUNTRIES = {"FR": "France", "GB": "United Kingdom", "DE": "Germany", "US": "United States"}
SESSION_KEY = web.RequestKey("basket_session", tuple)


def session(request: web.Request) -> dict[str, Any]:
    """The request's session (created on first use; its cookie is set by `session_cookie`). Seeded ids."""
    if SESSION_KEY in request:
        return request[SESSION_KEY][1]
    ctx: SiteContext = request.app[CTX_KEY]
    store = ctx.state.setdefault("sessions", {})
    sid = request.cookies.get(COOKIE)
    created = not (sid and sid in store)
    if created:
        sid = ctx.new_id("s", 24)
        store[sid] = {"csrf": hashlib.sha256(f"{ctx.seed}:csrf:{sid}".encode()).hexdigest()[:48], "lines": {},
                      "email": None, "address": None}
    request[SESSION_KEY] = (sid, store[sid], created)
    return store[sid]


@web.middleware
async def session_cookie(request: web.Request, handler: Any) -> web.StreamResponse:
    response = await handler(request)
    sid, _, created = request.get(SESSION_KEY, (None, None, False))
    if created and not response.prepared:
        response.set_cookie(COOKIE, sid, httponly=True, samesite="Lax", path="/")
    return response


def page(request: web.Request, title: str, body: str, status: int = 200) -> web.Response:
    data = session(request)
    count = sum(data["lines"].values())
    return html_response(pages.layout(title, body, count, request.app[CTX_KEY].now_ms), status)


def see_other(location: str) -> web.Response:
    return web.Response(status=303, headers={"Location": location})


async def checked_form(request: web.Request) -> tuple[dict[str, Any], Any]:
    """(session, form) of a POST whose CSRF token is the session's; else 403 like Django."""
    data = session(request)
    form = await request.post()
    if form.get("csrfmiddlewaretoken") != data["csrf"]:
        raise web.HTTPForbidden(text="CSRF verification failed. Request aborted.")
    return data, form


async def catalogue(request: web.Request) -> web.Response:
    return page(request, "Shop", pages.catalogue(list(PRODUCTS.values()), session(request)["csrf"]))


async def basket_add(request: web.Request) -> web.Response:
    data, form = await checked_form(request)
    pid = int(request.match_info["pid"]) if request.match_info["pid"].isdigit() else 0
    if pid not in PRODUCTS:
        raise web.HTTPNotFound(text="No such product")
    qty = str(form.get("quantity") or "1")
    data["lines"][pid] = data["lines"].get(pid, 0) + (int(qty) if qty.isdigit() else 1)
    return see_other("/basket/")


async def basket(request: web.Request) -> web.Response:
    data = session(request)
    lines = [(PRODUCTS[pid], qty) for pid, qty in data["lines"].items()]
    return page(request, "Basket", pages.basket(lines, data["csrf"]))


async def basket_update(request: web.Request) -> web.Response:
    """The basket's formset: form-TOTAL_FORMS, form-N-id, form-N-quantity (0 removes the line)."""
    data, form = await checked_form(request)
    total = str(form.get("form-TOTAL_FORMS") or "0")
    for n in range(int(total) if total.isdigit() else 0):
        pid, qty = str(form.get(f"form-{n}-id") or ""), str(form.get(f"form-{n}-quantity") or "")
        if pid.isdigit() and int(pid) in data["lines"] and qty.isdigit():
            if int(qty) == 0:
                data["lines"].pop(int(pid))
            else:
                data["lines"][int(pid)] = int(qty)
    return see_other("/basket/")


async def guest_form(request: web.Request) -> web.Response:
    data = session(request)
    return page(request, "Checkout", pages.guest(data["csrf"], data["email"] or ""))


async def guest_post(request: web.Request) -> web.Response:
    data, form = await checked_form(request)
    email = str(form.get("username") or "").strip()
    if "@" not in email:
        return page(request, "Checkout", pages.guest(data["csrf"], email, "Enter a valid email address."), 400)
    data["email"] = email
    return see_other("/checkout/shipping-address/")


async def address_form(request: web.Request) -> web.Response:
    data = session(request)
    return page(request, "Shipping address", pages.address(data["csrf"], data["address"] or {}, COUNTRIES))


async def address_post(request: web.Request) -> web.Response:
    data, form = await checked_form(request)
    address = {k: str(form.get(k) or "").strip() for k in ADDRESS_FIELDS}
    missing = [k for k in ADDRESS_FIELDS if not address[k]]
    if missing:
        return page(request, "Shipping address", pages.address(data["csrf"], address, COUNTRIES,
                                                               f"Required: {', '.join(missing)}"), 400)
    data["address"] = address
    return see_other("/checkout/preview/")


def pending(data: dict[str, Any]) -> dict[str, Any]:
    """The order the session would become (the preview page and /api/basket show it)."""
    lines = [{"product": PRODUCTS[pid]["name"], "quantity": qty} for pid, qty in data["lines"].items()]
    return {"lines": lines, "email": data["email"], "address": data["address"]}


async def preview(request: web.Request) -> web.Response:
    data = session(request)
    return page(request, "Preview order", pages.preview(pending(data), data["csrf"], COUNTRIES))


async def place_order(request: web.Request) -> web.Response:
    """The terminal request: only the CSRF token and action=place_order; the order comes from the session."""
    data, form = await checked_form(request)
    order = pending(data)
    if form.get("action") != "place_order" or not order["lines"] or not order["email"] or not order["address"]:
        return page(request, "Preview order", pages.preview(order, data["csrf"], COUNTRIES,
                                                            "Your order is not complete."), 400)
    ctx: SiteContext = request.app[CTX_KEY]
    number = 100000 + len(ctx.state.setdefault("orders", [])) + 1
    ctx.state["orders"].append({"number": number, **order})
    data.update(lines={}, email=None, address=None)
    return see_other(f"/checkout/thank-you/{number}/")


async def thank_you(request: web.Request) -> web.Response:
    return page(request, "Thank you", pages.thank_you(request.match_info["number"]))


async def api_basket(request: web.Request) -> web.Response:
    return web.json_response(pending(session(request)))


def make_app(ctx: SiteContext) -> web.Application:
    app = new_app(ctx)
    app.middlewares.append(session_cookie)
    app.router.add_get("/", catalogue)
    app.router.add_post("/basket/add/{pid}/", basket_add)
    app.router.add_get("/basket/", basket)
    app.router.add_post("/basket/", basket_update)
    app.router.add_get("/checkout/", guest_form)
    app.router.add_post("/checkout/", guest_post)
    app.router.add_get("/checkout/shipping-address/", address_form)
    app.router.add_post("/checkout/shipping-address/", address_post)
    app.router.add_get("/checkout/preview/", preview)
    app.router.add_post("/checkout/preview/", place_order)
    app.router.add_get("/checkout/thank-you/{number}/", thank_you)
    app.router.add_get("/api/basket", api_basket)
    return app
