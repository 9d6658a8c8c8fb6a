"""travel-flight-oneway on Skylark: JFK → LAX one-way, Dec 31 2026, economy, cheapest nonstop, one passenger."""

from __future__ import annotations

from tests.support.model_script import Script
from tests.support.scripts.plan import click, navigate, plan, prompt_value, select, together, type_


def script() -> Script:
    return plan(
        navigate(),
        click("button", "Accept all cookies"),
        click("radio", "One-way"),
        type_("combobox", "From", "New York"),
        click("option", "(JFK)"),
        type_("combobox", "To", "Los Angeles"),
        click("option", "(LAX)"),
        together(type_("textbox", "Depart", "2026-12-31"), select("combobox", "Cabin class", "economy")),
        click("button", "Search flights"),
        click("checkbox", "Nonstop only"),
        click("tab", "Cheapest"),
        click("button", "Select "),  # the first result: cheapest nonstop after sorting
        together(type_("textbox", "First name", prompt_value("first_name")),
                 type_("textbox", "Last name", prompt_value("last_name")),
                 type_("textbox", "Date of birth", prompt_value("date_of_birth")),
                 type_("textbox", "E-mail", prompt_value("email"), exact=True),
                 type_("textbox", "Contact e-mail", prompt_value("email")),
                 type_("textbox", "Mobile phone", prompt_value("phone"))),
        click("button", "Continue to review"),
        click("button", "Confirm and book"),
        final="I booked the cheapest nonstop economy flight from JFK to LAX on December 31, 2026.",
    )
