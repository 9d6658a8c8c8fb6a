"""A generated site's HTML: the page (theme, layout, cookie banner, modal or page, wizard steps of widgets), the
payment iframe's page and the confirmation popup. Behaviour lives in assets/app.js, driven by window.CONFIG."""

from __future__ import annotations

import json
from html import escape
from typing import Any

from factory.model import Site
from factory.widgets import widget


def final_button(site: Site) -> str:
    return {"payment_iframe": "Continue to payment", "popup": "Review and confirm"}.get(site.channel, site.submit)


def _config_script(config: dict[str, Any]) -> str:
    return "<script>window.CONFIG=%s;</script>" % json.dumps(config, sort_keys=True).replace("</", "<\\/")


def _step(site: Site, n: int, good: bool) -> str:
    rows = "".join(f'<div class="row">{widget(f, good)}</div>' for f in site.fields if f.step == n and not f.frame)
    last = n == site.steps() - 1
    button = final_button(site) if last else "Next"
    extra = ('<iframe title="Payment" id="payframe" hidden></iframe>' if last and site.channel == "payment_iframe"
             else "")
    hidden = "" if n == 0 else " hidden"
    return (f'<section class="step" data-step="{n}"{hidden}><h2>Step {n + 1} of {site.steps()}</h2>{rows}'
            f'<p class="err" role="alert"></p><button type="button" class="go" data-go="{n}">{escape(button)}</button>'
            f'{extra}</section>')


def index_html(site: Site, config: dict[str, Any]) -> str:
    good = site.axes["aria"] == "good"
    steps = "".join(_step(site, n, good) for n in range(site.steps()))
    form = f'<form id="task" novalidate onsubmit="return false">{steps}</form><p id="done" role="status"></p>'
    if site.axes["modal"]:
        body = (f'<button type="button" id="open" class="go">Get started</button><div class="modal" role="dialog" '
                f'aria-modal="true" aria-label="{escape(site.title)} form" hidden>{form}</div>')
    else:
        body = form
    banner = ('<div class="cookie" role="dialog" aria-label="Cookie consent"><div><p>We use cookies to improve '
              'this site.</p><button type="button" id="cookie-ok">Accept all</button></div></div>'
              if site.axes["cookie_banner"] else "")
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title>"
            "<link rel=\"stylesheet\" href=\"style.css\">%s</head>\n<body class=\"theme-%s layout-%s\">"
            "<header><h1>%s</h1><nav><a href=\"#\">Home</a> <a href=\"#\">Help</a></nav></header>"
            "<main>%s</main>%s<script src=\"app.js\"></script></body></html>\n"
            % (escape(site.title), _config_script(config), site.axes["theme"], site.axes["layout"],
               escape(site.title), body, banner))


def pay_html(site: Site, config: dict[str, Any]) -> str:
    good = site.axes["aria"] == "good"
    rows = "".join(f'<div class="row">{widget(f, good)}</div>' for f in site.fields if f.frame == "payment")
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Payment</title>"
            "<link rel=\"stylesheet\" href=\"style.css\">%s</head>\n<body class=\"theme-%s\"><form id=\"pay\" "
            "novalidate onsubmit=\"return false\">%s<p class=\"err\" role=\"alert\"></p><button type=\"button\" "
            "id=\"paynow\" class=\"go\">Pay now</button></form><script src=\"pay.js\"></script></body></html>\n"
            % (_config_script(config), site.axes["theme"], rows))


def popup_html(site: Site) -> str:
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Confirm</title>"
            "<link rel=\"stylesheet\" href=\"style.css\"></head>\n<body><h1>Please confirm</h1><dl id=\"summary\">"
            "</dl><button type=\"button\" id=\"confirm\" class=\"go\">Confirm</button><p id=\"done\" role=\"status\">"
            "</p><script src=\"popup.js\"></script></body></html>\n")
