"""A scripted model for browser-use: reads the element list browser-use sends and answers with its structured output
(`AgentOutput`: thoughts + actions by element index), as a real model would.

Why its own planner: browser-use sends no tool results and no ARIA refs; each request is the whole state again (the
task, the agent's history as text, the tabs, the page's elements). Over Anthropic the answer is a forced
`AgentOutput` tool call; over OpenAI chat it is the JSON document of the response_format schema.

The element list is a tree: a child is indented one tab deeper than its parent, an element's own text is on the
lines one tab deeper than it, and a field inside a `<label>` is that label's child:

    [48]<section />
    \tFind work that fits your life
    \t[53]<label />
    \t\tWhat
    \t\t|SHADOW(open)|[5]<input name=q placeholder=Job title, skill or company />

so an element's name is its own text (never its descendants'), its aria-label, its enclosing label's text, the text
line just before it, or its placeholder/title/alt (`Element.names`, best first).

    script = bu_plan(type_in("Write a comment on Maria", "Congrats", submit=True), click("Post"), final="Done")
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from tests.support.model_script import History, Script, ToolCall, Turn

ELEMENT = re.compile(r"^(?:\|SHADOW\(\w+\)\|)?\*?\[(\d+)\]<([\w-]+)(.*?)/?>(.*)$")
ATTR = re.compile(r"(?:^|\s)([A-Za-z_][\w:.-]*)=")
FIELDS = {"input", "select", "textarea"}
Action = Callable[[str], "list[dict[str, Any]] | None"]  # state text → actions; None: not there yet; []: nothing to do


@dataclass
class Element:
    index: int
    tag: str
    attrs: dict[str, str]
    depth: int
    text: list[str] = field(default_factory=list)  # its own text lines
    label: "Element | None" = None  # the <label> it is in (its text may come after the field)
    before: str = ""      # the page text line between the previous element and it (a label outside it)
    line: int = 0         # its line number in the state

    def names(self) -> list[str]:
        """What it may be called, best first ('' where it has no such name: ranks are positions)."""
        a = self.attrs
        own = " ".join(self.text)
        label = " ".join(self.label.text[:1]) if self.label else ""
        found = [a.get("aria-label", ""), own, label, a.get("placeholder", ""), a.get("title", ""),
                 a.get("alt", ""), self.before if self.tag in FIELDS else ""]
        return found


def state_text(request: dict[str, Any]) -> str:
    """The newest `<browser_state>` the request holds (Anthropic content blocks or OpenAI messages)."""
    texts = []
    for m in request.get("messages") or []:
        content = m.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts += [b.get("text", "") for b in content if isinstance(b, dict)]
    found = [t for t in texts if "<browser_state>" in t]
    return found[-1] if found else ""


def _attrs(said: str) -> dict[str, str]:
    marks = list(ATTR.finditer(said))
    return {m[1]: said[m.end():marks[i + 1].start() if i + 1 < len(marks) else len(said)].strip()
            for i, m in enumerate(marks)}


def elements(state: str) -> list[Element]:
    """The page's indexed elements in page order, each with its own text and its label."""
    body = state.split("Interactive elements:", 1)[-1].split("</browser_state>", 1)[0]
    out: list[Element] = []
    stack: list[Element] = []
    last_text = ""
    for n, line in enumerate(body.splitlines()):
        stripped = line.lstrip("\t")
        depth, content = len(line) - len(stripped), stripped.strip()
        if not content or content in ("[Start of page]", "[End of page]"):
            continue
        while stack and stack[-1].depth >= depth:
            stack.pop()
        m = ELEMENT.match(content)
        if m:
            label = next((e for e in reversed(stack) if e.tag == "label"), None)
            el = Element(int(m[1]), m[2], _attrs(m[3].strip()), depth, [m[4].strip()] if m[4].strip() else [],
                         label, last_text, n)
            out.append(el)
            stack.append(el)
            last_text = ""
        else:
            if stack and stack[-1].depth == depth - 1:
                stack[-1].text.append(content)
            last_text = content
    return out


def tabs(state: str) -> tuple[str, list[tuple[str, str]]]:
    """(the current tab's id, [(tab id, 'url - title')]) of the state."""
    current = re.search(r"^Current tab: (\w+)", state, re.M)
    listed = re.findall(r"^Tab (\w+): (.*)$", state, re.M)
    return (current[1] if current else ""), listed


def pages_below(state: str) -> float:
    m = re.search(r"([\d.]+) pages below", state)
    return float(m[1]) if m else 0.0


def _after(state: str, after: str | None, tag: str | tuple[str, ...] | None) -> list[Element] | None:
    """The elements (of `tag`) below the first line that is `after` (else: that holds it); None: no such line."""
    found = elements(state)
    if after is not None:
        lines = state.split("Interactive elements:", 1)[-1].split("</browser_state>", 1)[0].splitlines()
        want = after.strip().lower()
        start = next((n for n, line in enumerate(lines) if line.strip().lower() == want), None)
        start = next((n for n, line in enumerate(lines) if want in line.lower()), None) if start is None else start
        if start is None:
            return None
        found = [e for e in found if e.line > start]
    return [e for e in found if not tag or e.tag in ((tag,) if isinstance(tag, str) else tag)]


def find(state: str, text: str, tag: str | tuple[str, ...] | None = None, exact: bool = False,
         after: str | None = None) -> int | None:
    """The index of the first element called `text` (`key=value`: by that attribute), best name first; `tag`
    narrows it, `after` only looks past the first page line holding that text (e.g. a post's author)."""
    found = _after(state, after, tag)
    if found is None:
        return None
    if re.fullmatch(r"[\w-]+=\S+", text):
        key, value = text.split("=", 1)
        return next((e.index for e in found if e.attrs.get(key) == value), None)
    want = text.strip().lower()
    for rank in range(7):
        for e in found:
            name = e.names()[rank].strip().lower()
            if name and ((name == want) if exact else (want in name)):
                return e.index
    return None


def click(text: str, tag: str | None = None, exact: bool = False, after: str | None = None) -> Action:
    return lambda s: [{"click": {"index": i}}] if (i := find(s, text, tag, exact, after)) is not None else None


def prompt_value(key: str) -> Callable[[str], str]:
    """A `- key: value` line of the user request (the user's info as the adapter writes it)."""
    def get(state: str) -> str:
        m = re.search(rf"^- {re.escape(key)}: (.*)$", state.split("</user_request>", 1)[0], re.M)
        assert m, f"no '{key}' in the user request"
        return m[1].strip()
    return get


def click_nth(after: str, tag: str, n: int) -> Action:
    """Click the n-th (from 0) `tag` element below the line `after`: for options whose names the element list
    does not show (browser-use drops one-character texts, e.g. a size "M")."""
    def act(s: str) -> list[dict[str, Any]] | None:
        found = _after(s, after, tag)
        return [{"click": {"index": found[n].index}}] if found and len(found) > n else None
    return act


def type_in(text: str, value: str | Callable[[str], str], submit: bool = False, exact: bool = False) -> Action:
    def act(s: str) -> list[dict[str, Any]] | None:
        i = find(s, text, ("input", "textarea"), exact)
        i = find(s, text, exact=exact) if i is None else i
        if i is None:
            return None
        typed = value(s) if callable(value) else value
        return [{"input": {"index": i, "text": typed, "clear": True}}] + (
            [{"send_keys": {"keys": "Enter"}}] if submit else [])
    return act


def select(text: str, option: str, exact: bool = False) -> Action:
    def act(s: str) -> list[dict[str, Any]] | None:
        i = find(s, text, "select", exact)
        i = find(s, text, exact=exact) if i is None and re.fullmatch(r"[\w-]+=\S+", text) else i
        return [{"select_dropdown": {"index": i, "text": option}}] if i is not None else None
    return act


def upload(text: str, path: str | Callable[[str], str]) -> Action:
    """browser-use's upload_file on the file input called `text` (or the element it labels)."""
    def act(s: str) -> list[dict[str, Any]] | None:
        i = next((e.index for e in elements(s) if e.attrs.get("type") == "file"), None)
        i = find(s, text) if i is None else i
        return [{"upload_file": {"index": i, "path": path(s) if callable(path) else path}}] if i is not None else None
    return act


def switch_to(url_part: str) -> Action:
    """Make the tab whose URL holds `url_part` the current one (nothing to do when it already is)."""
    def act(s: str) -> list[dict[str, Any]] | None:
        current, listed = tabs(s)
        tab = next((t for t, desc in listed if url_part in desc.split(" - ", 1)[0]), None)
        if tab is None:
            return None
        return [] if tab == current else [{"switch": {"tab_id": tab}}]
    return act


def when(text: str, action: Action) -> Action:
    """`action`, once the page's elements show `text` (e.g. a confirmation)."""
    def act(s: str) -> list[dict[str, Any]] | None:
        body = s.split("Interactive elements:", 1)[-1]
        return action(s) if text.lower() in body.lower() else None
    return act


def output(actions: list[dict[str, Any]], goal: str) -> dict[str, Any]:
    return {"thinking": f"Next: {goal}", "evaluation_previous_goal": "Success", "memory": goal, "next_goal": goal,
            "action": actions}


def bu_plan(*actions: Action, final: str = "Done.", max_waits: int = 25) -> Script:
    """Play `actions` in order, one request each; while an action's target is not in the state: a wait, then a
    scroll down while the page goes on below; then `done`."""
    lock = threading.Lock()
    state = {"next": 0, "waits": 0}

    def script(request: dict[str, Any], h: History) -> Turn:
        with lock:
            page = state_text(request)
            acts: list[dict[str, Any]] | None = []
            while acts == [] and state["next"] < len(actions):
                acts = actions[state["next"]](page)
                if acts is not None:
                    state["next"], state["waits"] = state["next"] + 1, 0
            if not acts and state["next"] >= len(actions):
                out = output([{"done": {"text": final, "success": True}}], "report")
            else:
                if acts is None:
                    state["waits"] += 1
                    if state["waits"] > max_waits:
                        raise AssertionError(f"action {state['next']} never found its target in:\n{page[-3000:]}")
                    acts = ([{"scroll": {"down": True, "pages": 1.0}}] if state["waits"] > 1 and
                            pages_below(page) > 0.1 else [{"wait": {"seconds": 1}}])
                out = output(acts, f"step {state['next']}")
        if h.api == "anthropic":
            return Turn(tool_calls=[ToolCall("AgentOutput", out)])
        return Turn(text=json.dumps(out))

    return script
