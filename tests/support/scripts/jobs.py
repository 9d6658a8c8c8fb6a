"""jobs-apply-analyst on Hireloop: search, sign in, three application steps, résumé upload, submit."""

from __future__ import annotations

from tests.support.model_script import Script
from tests.support.scripts.plan import (click, navigate, plan, prompt_value, select, together, type_, upload,
                                        uploadable)


def script() -> Script:
    return plan(
        navigate(),
        together(type_("textbox", "What", "Senior Data Analyst"), type_("textbox", "Where", "Austin")),
        click("button", "Search jobs"),
        click("link", "Senior Data Analyst"),
        click("link", "Apply now"),
        together(type_("textbox", "Email address", prompt_value("email")),
                 type_("textbox", "Password", prompt_value("password"))),
        click("button", "Sign in"),
        together(type_("textbox", "Full name", prompt_value("full_name")),
                 type_("textbox", "Email", prompt_value("email"), exact=True),
                 type_("textbox", "Phone", prompt_value("phone")),
                 type_("textbox", "City", prompt_value("city"))),
        click("button", "Continue"),
        together(select("combobox", "Years of relevant experience", "5-7"),
                 click("radio", "Yes", exact=True),
                 type_("textbox", "Earliest start date", prompt_value("earliest_start_date")),
                 type_("textbox", "Salary expectation", prompt_value("salary_expectation_usd"))),
        click("button", "Continue"),
        together(upload("button", "Résumé", uploadable("resume.pdf")),
                 type_("textbox", "Cover letter", prompt_value("cover_letter")),
                 click("checkbox", "I confirm")),
        click("button", "Submit application"),
        final="I submitted the application for the Senior Data Analyst job.",
    )
