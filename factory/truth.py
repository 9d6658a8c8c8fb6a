"""Ground truth beyond the oracle: the subgoals (server-side predicates the site's server reports as it sees
them), the distractors (requests that must reach the server), the server's configuration, and the solver's plan
(what a person does: labels, roles and the user's info; never the oracle)."""

from __future__ import annotations

from typing import Any

from factory.channels import op_name, session_path, terminal
from factory.model import Site
from factory.pages import final_button


def _terminal_match(site: Site, dry_run: bool) -> dict[str, Any]:
    t = terminal(site)
    equals: dict[str, Any] = {"dry_run": dry_run}
    if t.op:
        equals["operationName"] = t.op
    if t.encoding == "ws":
        equals["type"] = "submit"
    return {"origin": t.origin, "method": t.method, "path": t.path, "equals": equals}


def subgoals(site: Site) -> list[dict[str, Any]]:
    """Reached in order by a correct solver: the page opened, each step's draft saved with the right values,
    the dry-run preview requested with the right values."""
    out: list[dict[str, Any]] = [{"name": "opened", "origin": "main", "method": "GET", "path": "/", "equals": {}}]
    session = site.channel == "session_steps"  # each step's values are also held by the session
    for n in range(site.steps()):
        values = {f.key: f.value for f in site.fields if f.step == n and not f.frame and f.widget != "file"}
        out.append({"name": f"step{n + 1}_saved", "origin": "main", "method": "POST", "path": "/api/drafts",
                    "equals": {"step": n + 1, **values}})
        if session:
            out.append({"name": f"step{n + 1}_held", "origin": "main", "method": "POST", "path": session_path(site),
                        "equals": {"step": n + 1, **values}})
    preview = _terminal_match(site, True)
    if not session:  # a session's preview carries no value: only the order to place it
        preview["equals"].update({f.key: f.value for f in site.fields if f.widget != "file"})
    out.append({"name": "previewed", **preview})
    return out


def distractors(site: Site) -> list[dict[str, Any]]:
    n = site.noun
    out = [
        {"kind": "autosave_draft", "origin": "main", "method": "POST", "path": "/api/drafts", "equals": {}},
        {"kind": "transient_500_retry", "origin": "main", "method": "POST", "path": "/api/drafts",
         "equals": {"attempt": 2}},
        {"kind": "analytics_beacon", "origin": "main", "method": "POST", "path": "/analytics/collect", "equals": {}},
        {"kind": "validation_ping", "origin": "main", "method": "POST", "path": f"/api/{n}/validate", "equals": {}},
        {"kind": "dry_run_preview", **_terminal_match(site, True)},
        {"kind": "csrf_refresh", "origin": "main", "method": "GET", "path": "/api/csrf", "equals": {}},
    ]
    if site.channel == "graphql":
        out.append({"kind": "graphql_search", "origin": "main", "method": "POST", "path": "/graphql",
                    "equals": {"operationName": "Search" + site.noun.capitalize()}})
    return out


def server_config(site: Site) -> dict[str, Any]:
    return {"id": site.id, "terminal": _terminal_match(site, False), "subgoals": subgoals(site),
            "distractors": distractors(site), "latency_ms": site.axes["latency_ms"],
            "validate_503": site.axes["failures"] == "validate_503", "op": op_name(site)}


def solver_plan(site: Site) -> dict[str, Any]:
    """The solver's steps: accept cookies, open the form, fill each field (by label, from the user's info), go
    on, and finish through the channel's UI (the payment frame's button, the popup's Confirm)."""
    steps: list[dict[str, Any]] = []
    if site.axes["cookie_banner"]:
        steps.append({"do": "click", "role": "button", "name": "Accept all"})
    if site.axes["modal"]:
        steps.append({"do": "click", "role": "button", "name": "Get started"})
    for n in range(site.steps()):
        for f in site.fields:
            if f.step == n and not f.frame:
                steps.append({"do": "field", "user": f.key, "label": f.label, "widget": f.widget})
        last = n == site.steps() - 1
        name = final_button(site) if last else "Next"
        if last and site.channel == "popup":
            steps.append({"do": "popup", "open": name, "name": "Confirm"})
        else:
            steps.append({"do": "click", "role": "button", "name": name})
    if site.channel == "payment_iframe":
        for f in site.fields:
            if f.frame:
                steps.append({"do": "field", "user": f.key, "label": f.label, "widget": f.widget, "frame": "Payment"})
        steps.append({"do": "click", "role": "button", "name": "Pay now", "frame": "Payment"})
    return {"site": site.id, "steps": steps}
