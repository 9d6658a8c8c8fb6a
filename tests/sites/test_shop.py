"""shop: batched GraphQL, the card iframe on a second origin, the service worker posting PlaceOrder, coupons."""

from __future__ import annotations

import json
import urllib.request

from tests.sites.conftest import assert_expect, load_spec, payload, since


def graphql(sites, body):
    req = urllib.request.Request(sites.urls["shop"] + "graphql", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(req))


def test_shop_order_end_to_end(sites, drive_site):
    spec = load_spec("shop-trail-order")
    start, order_number = drive_site("shop", spec["user"],
                                     after=lambda page: page.locator("#order-number").text_content())
    is_order = lambda r: (r["t"] >= start and r["path"] == "/graphql" and r["method"] == "POST"  # noqa: E731
                          and '"PlaceOrder"' in r.get("body", ""))
    order = sites.wait_for(is_order, timeout=20)
    batch = payload(order)
    assert isinstance(batch, list) and [op["operationName"] for op in batch] == ["PlaceOrder", "TrackEvent"]
    assert_expect(batch[0], spec["expect"])
    assert batch[0]["variables"]["input"]["paymentToken"].startswith("tok_")
    assert order["headers"].get("X-Northwind-Client") == "sw/1.4"  # posted by the service worker
    assert order_number and order_number.startswith("NW-")

    recs = since(sites.records(), start, "shop")
    pay = since(sites.records(), start, "shop_pay")
    token = next(r for r in pay if r["path"] == "/v1/tokens")
    form = payload(token)
    assert form["card[number]"] == "[masked]" and form["card[cvc]"] == "[masked]"
    assert form["card[exp_month]"] == "12" and form["merchant"] == "northwind"
    assert token["headers"]["Origin"] + "/" == sites.urls["shop_pay"]  # sent by the frame, from its own origin
    assert any(r["path"] == "/card-frame" for r in pay)
    assert token["t"] < order["t"]
    batches = [payload(r) for r in recs if r["path"] == "/graphql" and r["t"] < order["t"]]
    assert sum(isinstance(b, list) for b in batches) >= 5  # page loads batch their queries
    names = {op["operationName"] for b in batches for op in (b if isinstance(b, list) else [b])}
    assert {"Products", "Product", "AddToCart", "ApplyCoupon", "Cart", "ShippingOptions", "TrackEvent"} <= names
    assert "PlaceOrder" not in names
    assert any(r["path"] == "/sw.js" for r in recs) and any(r["path"].startswith("/img/") for r in recs)


def test_coupon_validation_errors_come_from_the_server(sites):
    expired, bogus = graphql(sites, [
        {"operationName": "ApplyCoupon", "query": "mutation ApplyCoupon($code: String!) { applyCoupon(code: $code) { id } }",
         "variables": {"code": "SUMMER24"}},
        {"operationName": "ApplyCoupon", "query": "mutation ApplyCoupon($code: String!) { applyCoupon(code: $code) { id } }",
         "variables": {"code": "NOPE"}},
    ])
    assert expired["errors"][0]["extensions"]["code"] == "COUPON_EXPIRED"
    assert bogus["errors"][0]["extensions"]["code"] == "COUPON_INVALID"
    assert "NOPE" in bogus["errors"][0]["message"]
