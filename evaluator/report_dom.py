"""The report's DOM panel (issue 39): each step's page before and after, rebuilt from the DOM layer (dom.jsonl.zst)
as inert HTML that the page's script puts into a sandboxed iframe (no scripts: `sandbox="allow-same-origin"` without
`allow-scripts`, and no script element or event handler attribute is ever written), the acted-on element marked.

Why HTML rebuilt here and not the page's own: the snapshot is what the browser showed (input values, checked boxes,
the layout's boxes and a subset of computed styles), the page's external stylesheets and images are not in the run
(the report works offline: no URL is loaded; a strict CSP in the frame too). Each element carries
`data-clawrec-n="<doc>-<node>"`, the key of its entry in `info` (box, visibility, disabled: what the picker shows,
from the recorded layout, not from the re-rendering). "Before" is the last capture taken before the step's first
action, "after" the first taken after its last one (as the screenshots: trajectory.before_after).
"""

from __future__ import annotations

import html
from typing import Any

from evaluator.trajectory import RunStep, Trajectory
from rundir import domsnap as D
from rundir.domfile import read_dom
from rundir.records import DOM

FRAME_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
VOID = {"AREA", "BASE", "BR", "COL", "EMBED", "HR", "IMG", "INPUT", "LINK", "META", "SOURCE", "TRACK", "WBR"}
DROP = {"SCRIPT", "NOSCRIPT", "TEMPLATE", "LINK", "BASE", "OBJECT", "EMBED", "APPLET"}
URL_ATTRS = {"src", "srcset", "href", "action", "formaction", "poster", "background", "data", "ping", "xlink:href"}
DEFAULTS = {"visibility": "visible", "opacity": "1", "pointer-events": "auto", "position": "static",
            "z-index": "auto", "overflow": "visible", "border-top-width": "0px", "border-top-style": "none",
            "cursor": "auto", "text-align": "start", "padding-top": "0px", "padding-right": "0px",
            "padding-bottom": "0px", "padding-left": "0px", "margin-top": "0px", "margin-right": "0px",
            "margin-bottom": "0px", "margin-left": "0px", "flex-direction": "row", "justify-content": "normal",
            "align-items": "normal", "gap": "normal", "grid-template-columns": "none", "border-radius": "0px",
            "line-height": "normal", "top": "auto", "left": "auto", "width": "auto", "box-sizing": "content-box"}
NOT_FOR_INLINE = ("width", "margin-top", "margin-bottom", "padding-top", "padding-bottom")  # no effect / harmful
INHERITED = ("color", "font-size", "font-weight", "font-family", "cursor", "text-align", "visibility")
ACTED = ("click", "input", "change", "keydown", "submit")
DOM_PANEL = ("<div id=dompanel><h3>page (DOM layer)</h3><div class=domtabs><button type=button data-which=before>"
             "before</button><button type=button data-which=after>after</button></div><div id=dom-status "
             "class=muted></div><div class=domview><iframe id=dom-frame sandbox=allow-same-origin "
             "title='the page rebuilt from the DOM layer (scripts disabled)'></iframe></div><div id=dom-pick></div>"
             "</div>")
MAX_CAPTURES = 400  # captures rendered into one report (a long run keeps its first steps' pages)


def _style(doc: D.Doc, node: int, styles: list[str], parent: dict[str, str]) -> tuple[str, dict[str, str]]:
    """The inline style of a rendered element: computed values that differ from the default (or, for inherited
    properties, from the parent's); `display: none` always."""
    st = doc.style(node, styles)
    if not st:
        return "", parent
    out = []
    inline = st.get("display") == "inline"
    for name, value in st.items():
        if inline and name in NOT_FOR_INLINE or name == "width" and doc.tag(node).upper() in ("HTML", "BODY"):
            continue
        if not value or DEFAULTS.get(name) == value or (name in INHERITED and parent.get(name) == value):
            continue
        if name == "background-color" and value == "rgba(0, 0, 0, 0)":
            continue
        out.append(f"{name}:{value}")
    return ";".join(out), st


class Renderer:
    """Inert HTML of one capture: every document of the page, cross-origin iframes placed into their <iframe>."""

    def __init__(self, capture: dict[str, Any]) -> None:
        self.capture = capture
        self.docs = D.docs(capture)
        self.styles = D.styles_of(capture)
        self.info: dict[str, dict[str, Any]] = {}
        self._used: set[int] = set()

    def key(self, doc: D.Doc, node: int) -> str:
        """The data-clawrec-n of a node of one of this capture's documents (found by the same snapshot dict)."""
        return f"{next(k for k, d in enumerate(self.docs) if d.doc is doc.doc)}-{node}"

    def html(self) -> str:
        return self._document(0) if self.docs else ""

    def _document(self, di: int) -> str:
        self._used.add(di)
        doc = self.docs[di]
        roots = [j for j in doc.children.get(0, []) if doc.is_element(j)]
        body = "".join(self._node(di, doc, j, {}) for j in roots)
        return (f"<!doctype html><meta charset=utf-8><meta http-equiv=Content-Security-Policy "
                f"content=\"{FRAME_CSP}\">{body}")

    def _child_doc(self, di: int, doc: D.Doc, node: int) -> int | None:
        """The document an <iframe> element shows: same-process (contentDocumentIndex) or its own target (by URL)."""
        rare = (doc.doc.get("nodes") or {}).get("contentDocumentIndex") or {}
        for idx, child in zip(rare.get("index") or [], rare.get("value") or []):
            if idx == node:  # indices are within this frame's snapshot: map to our flat list
                same = [d for d in self.docs if d.frame is doc.frame]
                if 0 <= child < len(same):
                    return next(k for k, d in enumerate(self.docs) if d is same[child])
        src = doc.attrs(node).get("src", "")
        for k, other in enumerate(self.docs):
            if k not in self._used and other.frame is not doc.frame and src and other.url == src:
                return k
        return None

    def _node(self, di: int, doc: D.Doc, i: int, parent_style: dict[str, str]) -> str:
        if not doc.is_element(i):
            if doc.node_type(i) != 3:
                return ""
            text = doc.node_value(i)
            if doc.tag(doc.parents[i]).upper() == "STYLE":  # raw text: must not close its element
                return text.replace("</", "<\\/")
            return html.escape(text, quote=False)
        tag = doc.tag(i).upper()
        if tag in DROP or tag.startswith("::"):
            return ""
        key = f"{di}-{i}"
        box = doc.box(i)
        entry: dict[str, Any] = {"box": box, "visible": doc.visible(i, self.styles)}
        if doc.disabled(i):
            entry["disabled"] = True
        st = doc.style(i, self.styles)
        if st:
            entry["style"] = {k: st[k] for k in ("display", "visibility", "opacity", "pointer-events") if k in st}
        self.info[key] = entry
        attrs = [f'data-clawrec-n="{key}"']
        for name, value in doc.attrs(i).items():
            low = name.lower()
            if low.startswith("on") or low in URL_ATTRS or low == "style":
                attrs.append(f'data-clawrec-x-{html.escape(low)}="{html.escape(value)}"')  # shown by the picker
            elif low == "value" and tag == "INPUT":
                attrs.append(f'data-clawrec-x-value="{html.escape(value)}"')  # the attribute; the live value below
            elif low.replace("-", "").replace("_", "").replace(":", "").isalnum():
                attrs.append(f'{html.escape(low)}="{html.escape(value)}"')
        value = doc.value(i)
        if tag == "INPUT" and value is not None:
            attrs.append(f'value="{html.escape(value)}"')
        if i in doc.checked:
            attrs.append("checked")
        if i in doc.selected:
            attrs.append("selected")
        css, computed = _style(doc, i, self.styles, parent_style)
        own = doc.attrs(i).get("style", "")
        if css or own:
            attrs.append(f'style="{html.escape(";".join(x for x in (own, css) if x))}"')
        if tag == "IFRAME" or tag == "FRAME":
            child = self._child_doc(di, doc, i)
            if child is not None:
                attrs.append(f'srcdoc="{html.escape(self._document(child))}"')
            return f"<iframe {' '.join(attrs)}></iframe>"
        name = tag.lower() if tag.replace("-", "").isalnum() else "div"
        if tag in VOID:
            return f"<{name} {' '.join(attrs)}>"
        if tag == "TEXTAREA":
            inner = html.escape(value or "", quote=False)
        else:
            inner = "".join(self._node(di, doc, j, computed or parent_style) for j in doc.children.get(i, []))
        return f"<{name} {' '.join(attrs)}>{inner}</{name}>"


def _principal(st: RunStep) -> dict[str, Any] | None:
    """The action a step acted with (its last click, typing or key press on an element)."""
    acted = [a.raw for a in st.actions if a.type in ACTED and isinstance(a.target, dict)]
    return acted[-1] if acted else None


class DomPanel:
    """The DOM panel's data for report.html: rendered captures by key, and each step's before/after + target."""

    def __init__(self, tr: Trajectory) -> None:
        self.tr = tr
        self.captures, self.bad = read_dom(tr.run.path / DOM) if (tr.run.path / DOM).exists() else ([], 0)
        self.captures = [c for c in self.captures if not c.get("error") and c.get("frames")]
        self.rendered: dict[str, dict[str, Any]] = {}
        self._renderers: dict[int, Renderer] = {}

    def _render(self, capture: dict[str, Any]) -> tuple[str, Renderer] | None:
        key = f"d{capture.get('seq')}"
        if key not in self.rendered:
            if len(self.rendered) >= MAX_CAPTURES:
                return None
            r = Renderer(capture)
            self.rendered[key] = {"html": r.html(), "info": r.info, "t": capture.get("t"), "url": capture.get("url"),
                                  "seq": capture.get("seq"), "frames": len(capture.get("frames") or [])}
            self._renderers[id(capture)] = r
        return key, self._renderers[id(capture)]

    def step(self, st: RunStep) -> dict[str, Any]:
        times = [a.t for a in st.actions if a.t is not None]
        first, last = (min(times), max(times)) if times else (st.t0, st.t0)
        before = next((c for c in reversed(self.captures) if c.get("t", 0) < first), None)
        after = next((c for c in self.captures if c.get("t", 0) > last), None)
        action = _principal(st)
        out: dict[str, Any] = {}
        for name, capture in (("before", before), ("after", after)):
            got = self._render(capture) if capture is not None else None
            if got is None:
                continue
            key, renderer = got
            out[name] = key
            found = D.locate(capture, action) if action is not None else None
            if found is not None:
                out[name + "_target"] = renderer.key(*found)
        if action is not None:
            t = action.get("target") or {}
            out["action"] = f"{action.get('type')} {str(t.get('tag') or '').lower()}" + \
                (f"#{t['id']}" if t.get("id") else "")
        return out

    def data(self) -> dict[str, Any] | None:
        """None when the run has no DOM layer (the panel then says so)."""
        if not self.captures:
            return None
        steps = {str(st.n): self.step(st) for st in self.tr.steps}
        return {"captures": self.rendered, "steps": steps}
