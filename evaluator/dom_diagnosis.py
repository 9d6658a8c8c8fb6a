"""What the page itself says about a failed run, from the DOM layer (dom.jsonl.zst; rundir/domsnap.py reads it):

- reset: the agent typed a value into a field and a later capture of the same document holds the field empty or
  back at its value from before the typing (the page reset it: a re-render, a validation, a form reset);
- disabled: the element a click landed on was disabled (its `disabled` attribute, a disabled fieldset, or
  aria-disabled="true") in the last capture before the click;
- covered: the point clicked was covered: the topmost element there (paint order) was not the element the agent
  aimed at, or the click landed on an overlay (fixed/absolute, or covering most of the viewport) above a control;
- modal: the run ended with a modal open over the page (role=dialog/alertdialog, aria-modal, <dialog open>, or a
  fixed element covering most of the viewport) in the final capture.

Each finding names the step (the report's numbering), the action's seq and the element (tag#id.class "text").
Why its own module: diagnose.py only asks `dom_findings(trajectory)` for a FAIL; nothing here needs a browser.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urldefrag

from evaluator.trajectory import Trajectory
from rundir import domsnap as D
from rundir.domfile import read_dom
from rundir.records import DOM

TEXTUAL = {"", "input", "text", "email", "search", "tel", "url", "number", "textarea", "date"}  # target `type`
CONTROLS = {"A", "BUTTON", "INPUT", "SELECT", "TEXTAREA", "SUMMARY", "LABEL", "OPTION"}
COVER_SHARE = 0.5  # of the viewport an overlay covers


def name(doc: D.Doc, node: int) -> str:
    """tag#id.class "text", short: how a finding names an element."""
    a = doc.attrs(node)
    out = doc.tag(node).lower() + (f"#{a['id']}" if a.get("id") else "")
    if a.get("class") and not a.get("id"):
        out += "." + ".".join(a["class"].split()[:2])
    if a.get("role"):
        out += f"[role={a['role']}]"
    text = doc.text(node, 60)
    return out + (f' "{text}"' if text else "")


def _same_doc(capture: dict[str, Any], url: str | None) -> bool:
    docs = D.docs(capture)
    return bool(docs and url and urldefrag(docs[0].url)[0] == urldefrag(url)[0])


def _control(doc: D.Doc, node: int) -> bool:
    a = doc.attrs(node)
    return doc.tag(node).upper() in CONTROLS or a.get("role") in ("button", "link", "checkbox", "tab") \
        or "onclick" in a


def _overlay(doc: D.Doc, node: int, styles: list[str]) -> bool:
    st = doc.style(node, styles)
    box = doc.box(node) or [0, 0, 0, 0]
    view = (doc.box(0) or doc.box(next(iter(doc.layout_of), 0)) or [0, 0, 1280, 800])
    area = max(1.0, float(view[2]) * float(view[3]))
    return st.get("position") in ("fixed", "absolute") and box[2] * box[3] >= COVER_SHARE * area or \
        st.get("position") == "fixed" and box[2] * box[3] >= 0.9 * area


class DomDiagnosis:
    """The findings of one run (empty when it has no DOM layer)."""

    def __init__(self, tr: Trajectory) -> None:
        self.tr = tr
        path = tr.run.path / DOM
        captures, _bad = read_dom(path) if path.exists() else ([], 0)
        self.captures = [c for c in captures if not c.get("error") and c.get("frames")]

    def _where(self, action: dict[str, Any]) -> dict[str, Any]:
        st = self.tr.step_of_seq(action.get("seq"))
        return {"step": st.n if st else None, "seq": action.get("seq"), "t": action.get("t")}

    def _finding(self, kind: str, action: dict[str, Any] | None, doc: D.Doc, node: int, styles: list[str],
                 summary: str, capture: dict[str, Any]) -> dict[str, Any]:
        where = self._where(action) if action else {"step": None, "seq": None, "t": capture.get("t")}
        step = f"step {where['step']} (seq {where['seq']}): " if where["step"] is not None else ""
        info = doc.describe(node, styles)
        return {"kind": kind, **where, "element": name(doc, node), "tag": info["tag"],
                "attributes": info["attributes"], "box": info["box"], "capture_seq": capture.get("seq"),
                "summary": step + summary}

    def resets(self) -> list[dict[str, Any]]:
        last: dict[tuple, dict[str, Any]] = {}
        for a in self.tr.run.actions:
            raw = a.raw
            t = raw.get("target") if isinstance(raw.get("target"), dict) else {}
            if a.type in ("input", "change") and isinstance(raw.get("value"), str) and raw["value"] and \
                    not raw.get("masked") and str(t.get("type") or "").lower() in TEXTUAL and t.get("xpath"):
                last[(raw.get("frame_url"), t["xpath"])] = raw
        out = []
        for action in sorted(last.values(), key=lambda r: r.get("seq") or 0):
            before = D.before_of(self.captures, action)
            after = D.after_of(self.captures, action)
            later = [c for c in self.captures if c.get("t", 0) > action.get("t", 0) and c is not after
                     and _same_doc(c, action.get("url"))]
            if not later:
                continue
            found = D.locate(later[-1], action)
            if found is None:
                continue
            doc, node = found
            now = doc.value(node)
            was = None
            if before is not None and (b := D.locate(before, action)) is not None:
                was = b[0].value(b[1])
            typed = action["value"]
            if now is None or now.strip() == typed.strip() or not (now == "" or now == was):
                continue
            held = f"empty" if now == "" else f"back to {now!r}"
            out.append(self._finding("reset", action, doc, node, D.styles_of(later[-1]),
                                     f"typed {typed!r} into {name(doc, node)}; the page then reset it ({held} at "
                                     f"{later[-1].get('t', 0):.2f}s)", later[-1]))
        return out

    def clicks(self) -> list[dict[str, Any]]:
        out = []
        for a in self.tr.run.actions:
            if a.type != "click" or not isinstance(a.target, dict):
                continue
            action = a.raw
            capture = D.before_of(self.captures, action)
            found = D.locate(capture, action) if capture is not None else None
            if found is None:
                continue
            doc, node = found
            styles = D.styles_of(capture)
            if doc.disabled(node):
                out.append(self._finding("disabled", action, doc, node, styles,
                                         f"clicked {name(doc, node)}, which was disabled", capture))
                continue
            point = D.point_of(action)
            box = doc.box(node)
            if point is None or action.get("frame") not in (0, None) or not box or not (
                    box[0] <= point[0] < box[0] + box[2] and box[1] <= point[1] < box[1] + box[3]):
                continue  # the capture shows another layout than the one clicked (not rendered yet, moved)
            hits = doc.at(*point)
            if not hits:
                continue
            top = hits[0]
            inside = top == node or node in doc.ancestors(top)
            if not inside and top not in doc.ancestors(node):
                out.append(self._finding("covered", action, doc, node, styles,
                                         f"clicked {name(doc, node)}, covered at that point by {name(doc, top)}",
                                         capture))
            elif top == node and not _control(doc, node) and _overlay(doc, node, styles):
                under = next((h for h in hits[1:] if _control(doc, h) and h not in doc.ancestors(node)), None)
                if under is not None:
                    out.append(self._finding("covered", action, doc, under, styles,
                                             f"the click meant for {name(doc, under)} landed on the overlay "
                                             f"{name(doc, node)} above it", capture))
        return out

    def modal(self) -> list[dict[str, Any]]:
        if not self.captures:
            return []
        final = next((c for c in reversed(self.captures) if c.get("reason") == "final"), self.captures[-1])
        docs = D.docs(final)
        if not docs:
            return []
        doc, styles = docs[0], D.styles_of(final)
        for i in range(len(doc)):
            if not doc.is_element(i) or not doc.visible(i, styles):
                continue
            a = doc.attrs(i)
            dialog = a.get("role") in ("dialog", "alertdialog") or a.get("aria-modal") == "true" or \
                (doc.tag(i).upper() == "DIALOG" and "open" in a)
            if dialog or (_overlay(doc, i, styles) and doc.style(i, styles).get("position") == "fixed"):
                return [self._finding("modal", None, doc, i, styles,
                                      f"the run ended with a modal open over the page: {name(doc, i)}", final)]
        return []

    def findings(self) -> list[dict[str, Any]]:
        return self.resets() + self.clicks() + self.modal()


def dom_findings(tr: Trajectory) -> list[dict[str, Any]]:
    """Reset fields, disabled or covered clicks and a final modal, in that order (see the module docstring)."""
    return DomDiagnosis(tr).findings()
