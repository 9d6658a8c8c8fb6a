"""The terminal channels: for each, the request that ends the task (method, origin, path, encoding), the
intercept rule that names it, and where each user field lands in its payload (the oracle's paths). The browser
side of each channel is in assets/app.js; the server side in factory/app.py."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from factory.model import Site

AURA_DESCRIPTOR = "apex://FormController/ACTION$submit"


@dataclass(frozen=True)
class Terminal:
    method: str            # POST | GET | PUT | PATCH | DELETE | WS
    origin: str            # main | pay
    path: str              # on that origin, from "/"
    encoding: str          # urlencoded | multipart | json | graphql | graphql_batch | query | ws | aura
    op: str = ""           # GraphQL operationName

    def to_json(self) -> dict[str, Any]:
        return {"method": self.method, "origin": self.origin, "path": self.path, "encoding": self.encoding,
                "op": self.op}


def op_name(site: Site) -> str:
    return "Create" + site.noun[:-1].capitalize()


def terminal(site: Site) -> Terminal:
    n, ch = site.noun, site.channel
    if ch == "form_post":
        return Terminal("POST", "main", f"/api/{n}", "urlencoded")
    if ch == "multipart":
        return Terminal("POST", "main", f"/api/{n}/upload", "multipart")
    if ch in ("fetch_json", "xhr", "service_worker"):
        return Terminal("POST", "main", f"/api/{n}", "json")
    if ch == "graphql":
        return Terminal("POST", "main", "/graphql", "graphql_batch" if site.axes["batched"] else "graphql",
                        op_name(site))
    if ch == "get_form":
        return Terminal("GET", "main", f"/api/{n}/confirm", "query")
    if ch == "beacon":
        return Terminal("POST", "main", f"/api/{n}/beacon", "urlencoded")
    if ch == "websocket":
        return Terminal("WS", "main", f"/ws/{site.id}", "ws")
    if ch == "payment_iframe":
        return Terminal("POST", "pay", "/v1/charges", "json")
    if ch == "popup":
        return Terminal("POST", "main", f"/api/{n}/confirm", "json")
    if ch == "aura_field":
        return Terminal("POST", "main", "/aura", "aura")
    if ch == "rest_method":
        return Terminal(site.axes["rest_method"], "main", f"/api/{n}/{site.record_id}", "json")
    if ch == "session_steps":  # the values went in earlier writes (`session_writes`); this carries none
        return Terminal("POST", "main", f"/api/{n}/place", "json")
    raise ValueError(f"unknown channel {ch!r}")


def site_name(site: Site, origin: str) -> str:
    return site.id if origin == "main" else f"{site.id}_pay"


def rule(site: Site) -> dict[str, Any]:
    """The spec's intercept rule: URL + method; `equals` tells the real submission from its dry-run preview."""
    t = terminal(site)
    if t.method == "WS":
        return {"url": f"ws://127.0.0.1:*{t.path}", "equals": {"type": "submit", "dry_run": False}}
    out: dict[str, Any] = {"url": f"{{sites.{site_name(site, t.origin)}}}{t.path[1:]}", "method": t.method}
    if t.encoding == "aura":
        out["equals"] = {"message.actions.*.params.dry_run": False}
    elif t.op:
        out["equals"] = {"operationName": t.op, "dry_run": False}
    else:
        out["equals"] = {"dry_run": False}
    return out


def path_of(site: Site, key: str) -> str:
    """Where the user field `key` is in the caught payload (a taskspec field path)."""
    return f"message.actions.0.params.{key}" if site.channel == "aura_field" else key


def oracle(site: Site, alt: bool = False) -> dict[str, Any]:
    """The exact terminal request's fields (user values as sent; files by name), without the CSRF token."""
    if site.channel == "session_steps":  # only the order to place what the session holds
        return {"action": "place", "dry_run": False}
    payload: dict[str, Any] = {}
    for f in site.fields:
        value = f.alt if alt else f.value
        if f.widget == "file" and site.channel == "multipart":
            payload[path_of(site, f.key)] = {"file": value}
        else:
            payload[path_of(site, f.key)] = value
    payload[path_of(site, "dry_run")] = False
    return payload


def expect(site: Site, alt: bool = False) -> dict[str, Any]:
    """The spec's `expect`: the oracle's plain fields (a multipart file part is compared by the run's file)."""
    return {k: v for k, v in oracle(site, alt).items() if not isinstance(v, dict) and not k.endswith("dry_run")}


def session_path(site: Site) -> str:
    return f"/api/{site.noun}/session"


def session_writes(site: Site, alt: bool = False) -> list[dict[str, Any]]:
    """session_steps: each wizard step's values, POSTed to the session endpoint before the final request; the
    spec's `writes:` (one per step, told apart by `step`; files by name)."""
    if site.channel != "session_steps":
        return []
    out = []
    for n in range(site.steps()):
        values = {f.key: (f.alt if alt else f.value) for f in site.fields if f.step == n and not f.frame}
        if values:
            out.append({"url": f"{{sites.{site.id}}}{session_path(site)[1:]}", "method": "POST",
                        "equals": {"step": n + 1}, "name": f"step {n + 1}", "expect": values})
    return out
