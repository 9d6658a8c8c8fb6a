"""Server-rendered HTML for the basket shop (Potter & Pine). Plain functions returning strings; values escaped."""

from __future__ import annotations

from html import escape as e
from typing import Any

from sites.common import clock_script

STYLE = """
body{margin:0;font:15px/1.5 -apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#2b2118;background:#faf7f2}
header{display:flex;justify-content:space-between;align-items:center;padding:14px 40px;background:#fff;
border-bottom:1px solid #eadfce}header a{color:#6b3f1d;text-decoration:none;font-weight:700}
.brand{font-size:22px}main{max-width:820px;margin:0 auto;padding:24px}
.card{background:#fff;border:1px solid #eadfce;border-radius:12px;padding:20px 24px;margin:0 0 14px}
label{display:block;font-weight:600;margin:10px 0 4px}input,select{font:inherit;padding:8px 10px;border:1px solid #cdbfa9;
border-radius:6px;width:100%;box-sizing:border-box}.qty{width:90px}
button,.btn{display:inline-block;margin-top:14px;background:#6b3f1d;color:#fff;border:0;border-radius:6px;
padding:10px 20px;font:inherit;font-weight:700;cursor:pointer;text-decoration:none}
.error{color:#b91c1c;font-weight:600}table{width:100%;border-collapse:collapse}td,th{text-align:left;padding:6px}
"""


def csrf(token: str) -> str:
    return f'<input type="hidden" name="csrfmiddlewaretoken" value="{e(token)}">'


def layout(title: str, body: str, count: int, now_ms: int) -> str:
    return f"""<!doctype html><html lang="en"><head>{clock_script(now_ms)}<meta charset="utf-8">
<title>{e(title)} · Potter &amp; Pine</title><style>{STYLE}</style></head><body>
<header><a class="brand" href="/">Potter &amp; Pine</a><a href="/basket/">Basket ({count})</a></header>
<main>{body}</main></body></html>"""


def catalogue(products: list[dict[str, Any]], token: str) -> str:
    cards = "".join(f"""<article class="card"><h2>{e(p['name'])}</h2><p>€{p['price']:.2f}</p>
<form method="post" action="/basket/add/{p['id']}/">{csrf(token)}<input type="hidden" name="quantity" value="1">
<button type="submit" aria-label="Add {e(p['name'])} to basket">Add to basket</button></form></article>"""
                    for p in products)
    return f"<h1>Handmade for the table</h1>{cards}"


def basket(lines: list[tuple[dict[str, Any], int]], token: str) -> str:
    if not lines:
        return '<h1>Basket</h1><p class="card">Your basket is empty. <a href="/">Continue shopping</a></p>'
    rows = "".join(f"""<tr><td>{e(p['name'])}<input type="hidden" name="form-{n}-id" value="{p['id']}"></td>
<td><label for="q{n}">Quantity of {e(p['name'])}</label><input class="qty" id="q{n}" name="form-{n}-quantity"
type="number" min="0" value="{qty}"></td><td>€{p['price'] * qty:.2f}</td></tr>""" for n, (p, qty) in enumerate(lines))
    return f"""<h1>Basket</h1><form class="card" method="post" action="/basket/">{csrf(token)}
<input type="hidden" name="form-TOTAL_FORMS" value="{len(lines)}"><input type="hidden" name="form-INITIAL_FORMS"
value="{len(lines)}"><table>{rows}</table><button type="submit">Update basket</button></form>
<a class="btn" href="/checkout/">Proceed to checkout</a>"""


def guest(token: str, email: str, error: str = "") -> str:
    err = f'<p class="error" role="alert">{e(error)}</p>' if error else ""
    return f"""<h1>Who are you?</h1>{err}<form class="card" method="post" action="/checkout/">{csrf(token)}
<label for="id_username">Email address</label><input id="id_username" name="username" type="email" value="{e(email)}">
<input type="hidden" name="options" value="new"><p>You will check out as a guest.</p>
<button type="submit">Continue</button></form>"""


def address(token: str, values: dict[str, str], countries: dict[str, str], error: str = "") -> str:
    err = f'<p class="error" role="alert">{e(error)}</p>' if error else ""
    labels = {"first_name": "First name", "last_name": "Last name", "line1": "First line of address",
              "line4": "City", "postcode": "Post/Zip-code"}
    inputs = "".join(f'<label for="id_{k}">{label}</label><input id="id_{k}" name="{k}" value="{e(values.get(k, ""))}">'
                     for k, label in labels.items())
    options = "".join(f'<option value="{code}"{" selected" if values.get("country") == code else ""}>{e(name)}</option>'
                      for code, name in countries.items())
    return f"""<h1>Shipping address</h1>{err}<form class="card" method="post" action="/checkout/shipping-address/">
{csrf(token)}{inputs}<label for="id_country">Country</label><select id="id_country" name="country">{options}</select>
<button type="submit">Continue</button></form>"""


def preview(order: dict[str, Any], token: str, countries: dict[str, str], error: str = "") -> str:
    err = f'<p class="error" role="alert">{e(error)}</p>' if error else ""
    lines = "".join(f"<li>{line['quantity']} × {e(line['product'])}</li>" for line in order["lines"]) or \
        "<li>No items</li>"
    a = order["address"]
    ship = (f"{e(a['first_name'])} {e(a['last_name'])}, {e(a['line1'])}, {e(a['postcode'])} {e(a['line4'])}, "
            f"{e(countries.get(a['country'], a['country']))}" if a else "No shipping address yet")
    return f"""<h1>Preview order</h1>{err}<section class="card"><h2>Items</h2><ul>{lines}</ul>
<h2>Email</h2><p>{e(order['email'] or 'No email yet')}</p><h2>Ship to</h2><p>{ship}</p></section>
<form method="post" action="/checkout/preview/">{csrf(token)}<input type="hidden" name="action" value="place_order">
<button type="submit">Place order</button></form>"""


def thank_you(number: str) -> str:
    return f'<h1 id="order-number">Order #{e(number)} placed</h1><p class="card">Thank you for your order.</p>'
