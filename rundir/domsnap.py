"""Reading layer 6's captures (rundir/domfile.py): documents, elements, and which capture shows a step's page.

Why here (pure data, no browser): the viewer (evaluator/report*.py), the diagnosis (evaluator/dom_diagnosis.py)
and the tests read a CDP DOMSnapshot the same way: an element's tag, attributes, input value, box, computed
visibility and whether it is disabled; the element an action acted on (its xpath from the extension, else its id,
else the point it clicked); the element on top at a point (paint order). "Before" a step is the last capture of the
page taken before the action happened, "after" the capture the action asked for (recorder/dom.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterator

_STEP = re.compile(r"""^(?:\*\[@id=(?P<id>"(?:[^"\\]|\\.)*")\]|(?P<tag>[A-Za-z][\w-]*|\*\[local-name\(\)='(?P<local>[^']+)'\])\[(?P<n>\d+)\])$""")
INTERACTIVE = ("A", "BUTTON", "INPUT", "SELECT", "TEXTAREA", "SUMMARY", "LABEL", "OPTION")


@dataclass(eq=False)
class Doc:
    """One document of a capture (a DocumentSnapshot and its capture's string table)."""

    doc: dict[str, Any]
    strings: list[str]
    frame: dict[str, Any]  # the capture's frame entry (target, type, url)

    def __post_init__(self) -> None:
        n = self.doc.get("nodes") or {}
        self.parents: list[int] = n.get("parentIndex") or []
        self._names: list[int] = n.get("nodeName") or []
        self._types: list[int] = n.get("nodeType") or []
        self._values: list[int] = n.get("nodeValue") or []
        self._attrs: list[list[int]] = n.get("attributes") or []
        self.input_value = _rare(n.get("inputValue"))
        self.text_value = _rare(n.get("textValue"))
        self.checked = set((n.get("inputChecked") or {}).get("index") or [])
        self.selected = set((n.get("optionSelected") or {}).get("index") or [])
        layout = self.doc.get("layout") or {}
        self.layout_of: dict[int, int] = {node: i for i, node in enumerate(layout.get("nodeIndex") or [])}
        self._bounds = layout.get("bounds") or []
        self._styles = layout.get("styles") or []
        self._paint = layout.get("paintOrders") or []
        self.children: dict[int, list[int]] = {}
        for i, p in enumerate(self.parents):
            self.children.setdefault(p, []).append(i)

    def s(self, idx: int) -> str:
        return self.strings[idx] if isinstance(idx, int) and 0 <= idx < len(self.strings) else ""

    @property
    def url(self) -> str:
        return self.s(self.doc.get("documentURL", -1))

    @property
    def frame_id(self) -> str:
        return self.s(self.doc.get("frameId", -1))

    def __len__(self) -> int:
        return len(self.parents)

    def tag(self, i: int) -> str:
        return self.s(self._names[i]) if i < len(self._names) else ""

    def node_type(self, i: int) -> int:
        return self._types[i] if i < len(self._types) else 0

    def node_value(self, i: int) -> str:
        return self.s(self._values[i]) if i < len(self._values) else ""

    def is_element(self, i: int) -> bool:
        return i < len(self._types) and self._types[i] == 1

    def attrs(self, i: int) -> dict[str, str]:
        pairs = self._attrs[i] if i < len(self._attrs) else []
        return {self.s(pairs[k]): self.s(pairs[k + 1]) for k in range(0, len(pairs) - 1, 2)}

    def value(self, i: int) -> str | None:
        """An input's current value (what the person sees), a textarea's text."""
        if i in self.input_value:
            return self.s(self.input_value[i])
        return self.s(self.text_value[i]) if i in self.text_value else None

    def text(self, i: int, limit: int = 200) -> str:
        out: list[str] = []
        stack = [i]
        while stack and sum(map(len, out)) < limit:
            j = stack.pop()
            if j < len(self._types) and self._types[j] == 3:
                out.append(self.s(self._values[j]))
            stack.extend(reversed(self.children.get(j, [])))
        return " ".join(" ".join(out).split())[:limit]

    def style(self, i: int, styles: list[str]) -> dict[str, str]:
        """Computed styles of a rendered node (the recorder's COMPUTED_STYLES order); {} when it has no layout."""
        li = self.layout_of.get(i)
        vals = self._styles[li] if li is not None and li < len(self._styles) else []
        return {name: self.s(v) for name, v in zip(styles, vals)}

    def box(self, i: int) -> list[float] | None:
        li = self.layout_of.get(i)
        return list(self._bounds[li]) if li is not None and li < len(self._bounds) else None

    def paint(self, i: int) -> int:
        li = self.layout_of.get(i)
        return self._paint[li] if li is not None and li < len(self._paint) else -1

    def ancestors(self, i: int) -> Iterator[int]:
        j = self.parents[i] if i < len(self.parents) else -1
        while j >= 0:
            yield j
            j = self.parents[j]

    def disabled(self, i: int) -> bool:
        """Disabled as a form control is: its own attribute, or inside a disabled fieldset."""
        if "disabled" in self.attrs(i) or self.attrs(i).get("aria-disabled") == "true":
            return True
        return any(self.tag(a) == "FIELDSET" and "disabled" in self.attrs(a) for a in self.ancestors(i))

    def visible(self, i: int, styles: list[str]) -> bool:
        """Rendered, with a non-empty box, not visibility:hidden, not fully transparent (itself or an ancestor)."""
        box = self.box(i)
        if box is None or box[2] <= 0 or box[3] <= 0:
            return False
        st = self.style(i, styles)
        if st.get("visibility") in ("hidden", "collapse"):
            return False
        return all(self.style(a, styles).get("opacity", "1") not in ("0",) for a in (i, *self.ancestors(i)))

    def xpath(self, xpath: str) -> int | None:
        """The element an extension xpath names (`//*[@id="x"]/div[2]/button[1]` or `/html[1]/body[1]/…`)."""
        if not xpath:
            return None
        rel = xpath.startswith("//")
        steps = [p for p in xpath.lstrip("/").split("/") if p]
        cur: int | None = 0 if not rel else None
        for k, step in enumerate(steps):
            m = _STEP.match(step)
            if m is None:
                return None
            if m["id"] is not None:
                want = m["id"][1:-1].replace('\\"', '"').replace("\\\\", "\\")
                hits = [j for j in range(len(self)) if self.is_element(j) and self.attrs(j).get("id") == want]
                cur = hits[0] if len(hits) == 1 else None
            else:
                name = (m["local"] or m["tag"] or "").upper()
                kids = [j for j in self.children.get(cur if cur is not None else 0, [])
                        if self.is_element(j) and self.tag(j).upper() == name]
                n = int(m["n"])
                cur = kids[n - 1] if 0 < n <= len(kids) else None
            if cur is None:
                return None
        return cur

    def at(self, x: float, y: float) -> list[int]:
        """Elements whose box holds the point, topmost (highest paint order, then deepest) first."""
        hits = []
        for node, li in self.layout_of.items():
            b = self._bounds[li] if li < len(self._bounds) else None
            if b and self.is_element(node) and b[0] <= x < b[0] + b[2] and b[1] <= y < b[1] + b[3]:
                hits.append(node)
        depth = {n: sum(1 for _ in self.ancestors(n)) for n in hits}
        return sorted(hits, key=lambda n: (self.paint(n), depth[n]), reverse=True)

    def describe(self, i: int, styles: list[str]) -> dict[str, Any]:
        """What the viewer's picker and the diagnosis name an element by."""
        out: dict[str, Any] = {"tag": self.tag(i).lower(), "attributes": self.attrs(i), "box": self.box(i),
                               "visible": self.visible(i, styles), "disabled": self.disabled(i)}
        if self.value(i) is not None:
            out["value"] = self.value(i)
        text = self.text(i, 80)
        if text:
            out["text"] = text
        return out


def _rare(rare: dict[str, Any] | None) -> dict[int, int]:
    rare = rare or {}
    return dict(zip(rare.get("index") or [], rare.get("value") or []))


def docs(capture: dict[str, Any]) -> list[Doc]:
    """Every document of a capture: the page's (its main document first), then each out-of-process iframe's."""
    out = []
    for frame in capture.get("frames") or []:
        snap = frame.get("snapshot") or {}
        for d in snap.get("documents") or []:
            out.append(Doc(d, snap.get("strings") or [], frame))
    return out


def captures_of_page(captures: list[dict[str, Any]], target: Any) -> list[dict[str, Any]]:
    return [c for c in captures if c.get("target") == target and not c.get("error")]


def after_of(captures: list[dict[str, Any]], action: dict[str, Any]) -> dict[str, Any] | None:
    """The capture the action asked for (linked by action_seq)."""
    seq = action.get("seq")
    return next((c for c in captures if seq is not None and c.get("action_seq") == seq and not c.get("error")), None)


def before_of(captures: list[dict[str, Any]], action: dict[str, Any]) -> dict[str, Any] | None:
    """The last capture of the action's page taken before the action happened (t <= the action's own time)."""
    t = action.get("t_event", action.get("t"))
    after = after_of(captures, action)
    target = after.get("target") if after else action.get("target_id")
    pool = captures_of_page(captures, target) if target else [c for c in captures if not c.get("error")]
    if not isinstance(t, (int, float)):
        return None
    earlier = [c for c in pool if c.get("t", 0) <= t and c is not after]
    return earlier[-1] if earlier else None


def frame_doc(capture: dict[str, Any], action: dict[str, Any]) -> Doc | None:
    """The document the action happened in: the one whose URL is the action's frame URL, else the main one."""
    all_docs = docs(capture)
    if not all_docs:
        return None
    frame_url = action.get("frame_url") or action.get("url")
    if action.get("frame") not in (0, None) and frame_url:
        same = [d for d in all_docs if d.url == frame_url]
        if same:
            return same[0]
    return all_docs[0]


def locate(capture: dict[str, Any], action: dict[str, Any]) -> tuple[Doc, int] | None:
    """The element an action acted on, in a capture: by the extension's xpath, else a unique id, else the point."""
    doc = frame_doc(capture, action)
    if doc is None:
        return None
    target = action.get("target") or {}
    node = doc.xpath(str(target.get("xpath") or ""))
    if node is None and target.get("id"):
        hits = [j for j in range(len(doc)) if doc.is_element(j) and doc.attrs(j).get("id") == target["id"]]
        node = hits[0] if len(hits) == 1 else None
    point = point_of(action)
    if node is None and point is not None:
        top = doc.at(*point)
        node = top[0] if top else None
    return (doc, node) if node is not None else None


def point_of(action: dict[str, Any]) -> tuple[float, float] | None:
    """Where a click happened in document coordinates (the snapshot's boxes are the document's, not the
    viewport's): page_x/page_y, else x/y."""
    for kx, ky in (("page_x", "page_y"), ("x", "y")):
        x, y = action.get(kx), action.get(ky)
        if isinstance(x, (int, float)) and isinstance(y, (int, float)):
            return float(x), float(y)
    return None


def styles_of(capture: dict[str, Any]) -> list[str]:
    """The computed style names a capture's layout `styles` are values of (in order)."""
    return [str(s) for s in capture.get("styles") or []]
