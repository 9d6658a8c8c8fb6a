"""A run's browser actions reduced to the steps a person would name (click, fill, submit, navigate, press Enter,
switch tab): focus, single keystrokes, page loads and clicks on containers are noise, and a field's input/change
events collapse into one `fill` with its final value. Each step gets a key (type, target identity; URL path for
navigations) WITHOUT its value, so a wrong value still aligns with the reference's step (evaluator/diagnose.py)
and the report can name it in one line ("fill textbox \"Last name\" = \"Dough\"").
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from evaluator.normalize import text
from evaluator.same_site import canonical_url, page_key
from rundir.reader import Action, RunDir

NOISE = {"focus", "blur", "keyup", "keypress", "load", "scroll", "mousemove", "mouseover", "hover", "pointerdown",
         "pointerup", "mousedown", "mouseup", "wheel", "visibility", "resize", "selectionchange", "dom_content_loaded"}
FILL = {"input", "change"}
SUBMIT_AFTER_S = 1.0
CONTAINERS = {"form", "body", "html", "main", "section", "fieldset"}


@dataclass
class Step:
    """One meaningful action of a run."""

    seq: int | None
    t: float | None
    line: int
    type: str
    target: str           # how a person would name it: role "name" (or tag#id, or selector)
    identity: str         # the alignment key's target part (normalized)
    value: Any = None
    url: str | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.type, self.identity)

    def describe(self) -> str:
        shown = "" if self.value is None else f" = {json.dumps(self.value, ensure_ascii=False)[:80]}"
        return f"{self.type} {self.target}{shown}"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("identity")
        d["text"] = self.describe()
        return d


def target_identity(a: Action) -> str:
    """How two actions on the same element are told to be on the same element."""
    return _target(a)[1]


def _target(a: Action) -> tuple[str, str]:
    """(label, identity) of an action's target descriptor {tag, id, role, name, text, selector}."""
    t = a.target if isinstance(a.target, dict) else {}
    tag, ident, role = t.get("tag") or "", t.get("id"), t.get("role") or t.get("tag") or ""
    name = " ".join(str(t.get("name") or t.get("text") or "").split())[:60]
    if ident and (tag in CONTAINERS or not name or len(name) > 40):
        label = f"{tag}#{ident}"
    else:
        label = f'{role} "{name}"' if name else str(t.get("selector") or tag or "?")
    identity = f"#{ident}" if ident else (f"{role}|{text(name)}" if name else str(t.get("selector") or tag))
    return label, identity


def _nav_label(url: str, run: RunDir) -> str:
    """A navigation's URL as shown: without query and fragment, local site ports replaced by `{sites.NAME}`."""
    return canonical_url(url, run).split("#", 1)[0].split("?", 1)[0]


def steps(run: RunDir) -> list[Step]:
    """The run's actions reduced to meaningful steps (see the module docstring)."""
    out: list[Step] = []
    for a in run.actions:
        kind = a.type
        if kind in NOISE or (kind == "keydown" and a.key != "Enter"):
            continue
        if kind == "navigate" and str(a.url or "").startswith(("about:", "chrome:", "chrome-extension:", "data:")):
            continue  # a fresh tab's blank page, the browser's own pages: not a step anyone took
        if kind == "tab_open" and a.raw.get("initial"):
            continue  # the tab the browser started with
        if kind in ("navigate", "tab_switch"):
            where = _nav_label(a.url, run) if a.url else f"tab {a.tab}"  # keyed on the page (same_site.py)
            out.append(Step(a.seq, a.t, a.line, kind, where, page_key(a.url, run) if a.url else where, None, a.url))
            continue
        label, identity = _target(a)
        value = "[masked]" if a.raw.get("masked") else a.value
        prev = out[-1] if out else None
        if kind in FILL:
            if prev is not None and prev.type in ("fill", "click") and prev.identity == identity:
                prev.type, prev.value = "fill", value  # the field's final value (a click into it is part of it)
                continue
            out.append(Step(a.seq, a.t, a.line, "fill", label, identity, value, a.url))
            continue
        if kind == "click" and (a.target or {}).get("tag") in CONTAINERS:
            continue
        if kind == "submit" and prev is not None and prev.type in ("click", "press Enter in") \
                and a.t is not None and prev.t is not None and a.t - prev.t <= SUBMIT_AFTER_S:
            continue  # the form submission that click or Enter caused: one step
        if kind == "keydown":
            kind = "press Enter in"
        out.append(Step(a.seq, a.t, a.line, kind, label, identity, None, a.url))
    return out


