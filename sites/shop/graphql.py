"""The shop's GraphQL endpoint: single or batched operations, dispatched by operationName.

Why no GraphQL parser: the wire format is what matters to the interceptor and judges (a JSON list of
{operationName, query, variables}); each operation's resolver returns the shape its query asks for.
"""

from __future__ import annotations

from typing import Any, Callable

from sites.common import SiteContext
from sites.shop.catalog import COUPONS, PRODUCTS, SHIPPING, product


class GraphQLError(Exception):
    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


def cart_view(cart: dict[str, Any]) -> dict[str, Any]:
    lines = []
    for ln in cart["lines"]:
        p = product(ln["slug"])
        lines.append({"id": ln["id"], "sku": f'{ln["slug"]}:{ln["option"]}', "slug": ln["slug"], "name": p["name"],
                      "option": ln["option"], "quantity": ln["quantity"], "unitPrice": p["price"],
                      "total": round(p["price"] * ln["quantity"], 2)})
    subtotal = round(sum(x["total"] for x in lines), 2)
    pct = COUPONS[cart["coupon"]][0] if cart.get("coupon") else 0
    discount = round(subtotal * pct / 100, 2)
    return {"id": cart["id"], "lines": lines, "itemCount": sum(x["quantity"] for x in lines),
            "subtotal": subtotal, "coupon": cart.get("coupon"), "discount": discount,
            "total": round(subtotal - discount, 2), "currency": "USD"}


def resolve(ctx: SiteContext, cart: dict[str, Any], op: dict[str, Any]) -> dict[str, Any]:
    """One operation -> one GraphQL response object {data} or {data, errors}."""
    name = op.get("operationName")
    variables = op.get("variables") or {}
    fn = RESOLVERS.get(name or "")
    if fn is None:
        return {"errors": [{"message": f"Unknown operation {name!r}", "extensions": {"code": "GRAPHQL_VALIDATION_FAILED"}}]}
    field = name[0].lower() + name[1:]
    try:
        return {"data": {field: fn(ctx, cart, variables)}}
    except GraphQLError as exc:
        return {"data": {field: None}, "errors": [{"message": str(exc), "path": [field], "extensions": {"code": exc.code}}]}


def products(ctx, cart, v):
    return [{k: p[k] for k in ("slug", "name", "price", "category", "rating", "reviews")} for p in PRODUCTS]


def product_q(ctx, cart, v):
    p = product(str(v.get("slug", "")))
    if not p:
        raise GraphQLError("Product not found", "NOT_FOUND")
    out = {k: p[k] for k in ("slug", "name", "price", "category", "rating", "reviews", "blurb", "options")}
    out["optionLabel"] = p["option_label"]  # the query aliases option_label
    return out


def cart_q(ctx, cart, v):
    return cart_view(cart)


def add_to_cart(ctx, cart, v):
    p = product(str(v.get("slug", "")))
    option, qty = str(v.get("option", "")), int(v.get("quantity") or 1)
    if not p or option not in p["options"]:
        raise GraphQLError("Choose a valid option", "BAD_USER_INPUT")
    for ln in cart["lines"]:
        if ln["slug"] == p["slug"] and ln["option"] == option:
            ln["quantity"] += qty
            break
    else:
        cart["lines"].append({"id": ctx.new_id("ln_", 8), "slug": p["slug"], "option": option, "quantity": qty})
    return cart_view(cart)


def update_line(ctx, cart, v):
    qty = int(v.get("quantity") or 0)
    cart["lines"] = [dict(ln, quantity=qty) if ln["id"] == v.get("lineId") else ln for ln in cart["lines"]]
    cart["lines"] = [ln for ln in cart["lines"] if ln["quantity"] > 0]
    return cart_view(cart)


def apply_coupon(ctx, cart, v):
    code = str(v.get("code", "")).strip().upper()
    if code not in COUPONS:
        raise GraphQLError(f"The code {code or '(empty)'} is not valid.", "COUPON_INVALID")
    pct, err, message = COUPONS[code]
    if err:
        raise GraphQLError(message, err)
    cart["coupon"] = code
    return cart_view(cart)


def shipping_options(ctx, cart, v):
    return SHIPPING


def viewer(ctx, cart, v):
    return {"id": None, "guest": True, "country": "US"}


def track_event(ctx, cart, v):
    return {"ok": True}


def recommendations(ctx, cart, v):
    return [{"slug": p["slug"], "name": p["name"], "price": p["price"]} for p in PRODUCTS[2:5]]


def place_order(ctx, cart, v):
    inp = v.get("input") or {}
    missing = [k for k in ("email", "paymentToken", "shippingAddress") if not inp.get(k)]
    if missing:
        raise GraphQLError("Missing " + ", ".join(missing), "BAD_USER_INPUT")
    if not cart["lines"]:
        raise GraphQLError("Your cart is empty", "CART_EMPTY")
    view = cart_view(cart)
    ship = next((s for s in SHIPPING if s["id"] == inp.get("shippingMethod")), SHIPPING[0])
    order = {"id": ctx.new_id("ord_", 12), "number": f"NW-{100200 + len(ctx.state.setdefault('orders', [])) + 1}",
             "total": round(view["total"] + ship["price"], 2), "currency": "USD", "email": inp["email"],
             "placedAt": ctx.now.isoformat(), "lines": view["lines"]}
    ctx.state["orders"].append(order)
    cart["lines"], cart["coupon"] = [], None
    return order


RESOLVERS: dict[str, Callable[[SiteContext, dict, dict], Any]] = {
    "Products": products, "Product": product_q, "Cart": cart_q, "AddToCart": add_to_cart,
    "UpdateCartLine": update_line, "ApplyCoupon": apply_coupon, "ShippingOptions": shipping_options,
    "Viewer": viewer, "TrackEvent": track_event, "Recommendations": recommendations, "PlaceOrder": place_order,
}
