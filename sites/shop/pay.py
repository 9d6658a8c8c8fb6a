"""shop_pay — "Kestrel Pay", the card-entry iframe host on its own origin (a second port, host "localhost").

The shop embeds /card-frame in an iframe; on the shop's request (postMessage) the frame POSTs the card to its own
/v1/tokens (urlencoded, like real processors) and hands back a token. The card never touches the shop's server.
This POST is not terminal: the order is placed later by the shop's service worker with the token.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from aiohttp import web

from sites.common import CTX_KEY, SiteContext, new_app, render_page

STATIC = Path(__file__).parent / "pay_static"


def luhn_ok(number: str) -> bool:
    digits = [int(c) for c in number][::-1]
    total = sum(d if i % 2 == 0 else (d * 2 - 9 if d * 2 > 9 else d * 2) for i, d in enumerate(digits))
    return len(digits) >= 12 and total % 10 == 0


def brand_of(number: str) -> str:
    if number.startswith("4"):
        return "visa"
    if number[:2] in ("51", "52", "53", "54", "55") or number[:4].isdigit() and 2221 <= int(number[:4]) <= 2720:
        return "mastercard"
    if number[:2] in ("34", "37"):
        return "amex"
    return "unknown"


async def card_frame(request: web.Request) -> web.Response:
    ctx: SiteContext = request.app[CTX_KEY]
    parent = request.query.get("origin", "")
    return render_page(ctx, STATIC, "card.html", parent_origin=parent, merchant=request.query.get("merchant", ""))


async def tokens(request: web.Request) -> web.Response:
    ctx: SiteContext = request.app[CTX_KEY]
    form = await request.post()
    number = "".join(c for c in str(form.get("card[number]", "")) if c.isdigit())
    month, year = str(form.get("card[exp_month]", "")), str(form.get("card[exp_year]", ""))
    cvc = str(form.get("card[cvc]", ""))
    headers = {"Access-Control-Allow-Origin": "*"}
    if not luhn_ok(number):
        return web.json_response({"error": {"param": "number", "message": "Your card number is invalid."}},
                                 status=402, headers=headers)
    try:
        m, y = int(month), int(year)
        y = y + 2000 if y < 100 else y
    except ValueError:
        m, y = 0, 0
    if not 1 <= m <= 12 or (y, m) < (ctx.now.year, ctx.now.month):
        return web.json_response({"error": {"param": "exp", "message": "Your card's expiration date is invalid or in the past."}},
                                 status=402, headers=headers)
    if not (cvc.isdigit() and len(cvc) in (3, 4)):
        return web.json_response({"error": {"param": "cvc", "message": "Your card's security code is invalid."}},
                                 status=402, headers=headers)
    digest = hashlib.sha256(f"{ctx.seed}:{number}:{m}:{y}:{form.get('merchant', '')}".encode()).hexdigest()
    return web.json_response({"id": f"tok_{digest[:24]}", "object": "token",
                              "card": {"brand": brand_of(number), "last4": number[-4:], "exp_month": m, "exp_year": y}},
                             headers=headers)


async def ping(request: web.Request) -> web.Response:
    return web.json_response({"ok": True}, headers={"Access-Control-Allow-Origin": "*"})


def make_app(ctx: SiteContext) -> web.Application:
    app = new_app(ctx)
    app.router.add_get("/card-frame", card_frame)
    app.router.add_post("/v1/tokens", tokens)
    app.router.add_get("/v1/ping", ping)
    app.router.add_static("/static/", STATIC)
    return app
