"""shop-trail-order on Northwind: shoes EU 43 + socks M, coupon WELCOME10, checkout with the card iframe."""

from __future__ import annotations

from tests.support.model_script import Script
from tests.support.scripts.plan import click, navigate, plan, prompt_value, select, together, type_, when


def script() -> Script:
    return plan(
        navigate(),
        click("link", "Ridgeline Trail Runner 2"),
        click("radio", "43", exact=True),
        click("button", "Add to cart"),
        when("Added", click("link", "Northwind Outfitters")),
        click("link", "Merino Hiking Socks"),
        click("radio", "M", exact=True),
        click("button", "Add to cart"),
        when("Added", click("link", "Cart")),
        type_("textbox", "Discount code", "WELCOME10"),
        click("button", "Apply", exact=True),
        when("WELCOME10 applied", click("link", "Checkout")),
        together(type_("textbox", "Email", prompt_value("email"), exact=True),
                 type_("textbox", "Full name", prompt_value("name")),
                 type_("textbox", "Street address", prompt_value("address.street")),
                 type_("textbox", "City", prompt_value("address.city"), exact=True),
                 type_("textbox", "State", prompt_value("address.state"), exact=True),
                 type_("textbox", "ZIP code", prompt_value("address.zip")),
                 select("combobox", "Country", "US"),
                 type_("textbox", "Card number", prompt_value("card.number")),
                 type_("textbox", "Expiration", prompt_value("card.exp")),
                 type_("textbox", "Security code", prompt_value("card.cvc"))),
        click("button", "Place order"),
        final="I placed the order with WELCOME10 and free standard shipping.",
    )
