"""A Django-like basket on loopback whose final request carries no task value (issue 33): the quantity goes in with
"Add to basket" (POST /basket/add/), the postcode and e-mail with the address form (POST /checkout/,
`action=shipping_address`; its shipping choice is a field named `method`, its row a field named `id`), and "Place order" posts only CSRF
tokens and the pressed button's `action=place_order` to the same /checkout/. Every form carries the CSRF fields of
four frameworks (`csrfmiddlewaretoken`, `csrf_token`, `authenticity_token`, `_token`) with values made per site;
the page also reports a product view (POST /api/viewed, no task value), answered with an HTML snippet holding the
tokens, as Oscar's basket XHR is. The server keeps the basket in its
"session" and logs every request: the truth of what reached it."""

from __future__ import annotations

import secrets
from urllib.parse import parse_qs

from tests.loopback_site import Answer, LoopbackSite

TOKENS = ("csrfmiddlewaretoken", "csrf_token", "authenticity_token", "_token")

PRODUCT = """<!doctype html><html><head><title>Arabica</title></head><body><h1>Arabica coffee</h1>
<form method="post" action="/basket/add/">{csrf}<input type="hidden" name="product" value="Arabica">
<label>Quantity <input name="quantity" type="number" value="1"></label>
<button type="submit">Add to basket</button></form>
<script>fetch("/api/viewed", {{method: "POST", headers: {{"content-type": "application/json"}},
  body: JSON.stringify({{product_id: 17}})}});</script></body></html>"""

ADDRESS = """<!doctype html><html><head><title>Address</title></head><body><h1>Shipping address</h1>
<form id="address" method="post" action="/checkout/">{csrf}<input type="hidden" name="action" value="shipping_address">
<input type="hidden" name="id" value="42">
<label>Postcode <input name="postcode"></label><label>E-mail <input name="email"></label>
<label>Shipping <select name="method"><option value="standard">Standard</option></select></label>
<button type="submit">Continue</button></form></body></html>"""

PREVIEW = """<!doctype html><html><head><title>Preview</title></head><body><h1>Review your order</h1>
<p>{quantity} x Arabica to {postcode}</p>
<form method="post" action="/checkout/">{csrf}
<button type="submit" name="action" value="place_order">Place order</button>
</form></body></html>"""


class BasketSite(LoopbackSite):
    def __init__(self) -> None:
        super().__init__()
        self.tokens = {name: secrets.token_urlsafe(24) for name in TOKENS}
        self.session: dict[str, str] = {}

    def _csrf(self) -> str:
        return "".join(f'<input type="hidden" name="{k}" value="{v}">' for k, v in self.tokens.items())

    def answer(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Answer:
        form = {k: v[-1] for k, v in parse_qs(body.decode(errors="replace")).items()}
        self.log.append({"method": method, "path": path, "form": form})
        html = {"content-type": "text/html"}
        if method == "POST" and path == "/basket/add/":
            self.session["quantity"] = form.get("quantity", "")
            return 302, b"", {"location": "/checkout/"}
        if method == "POST" and path == "/checkout/" and form.get("action") == "shipping_address":
            self.session.update(postcode=form.get("postcode", ""), email=form.get("email", ""))
            return 302, b"", {"location": "/checkout/preview/"}
        if method == "POST" and path == "/checkout/" and form.get("action") == "place_order":
            self.session["ordered"] = "yes"
            return 200, b"<h1>Thank you</h1>", html
        if path == "/api/viewed":  # an XHR answered with HTML holding the tokens (Oscar's basket does): http.jsonl
            return 200, f'<form class="mini-basket">{self._csrf()}</form>'.encode(), html  # keeps such bodies
        page = {"/": PRODUCT, "/checkout/": ADDRESS, "/checkout/preview/": PREVIEW}.get(path)
        if page is None:
            return 200, b"{}", {"content-type": "application/json"}
        return 200, page.format(csrf=self._csrf(), **{"quantity": "", "postcode": "", **self.session}).encode(), html
