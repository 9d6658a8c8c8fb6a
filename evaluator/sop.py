"""`clawrec sop RUN`: a standard operating procedure from a run (usually a person's reference), after Cybernaut.

The steps are the run's essential steps (evaluator/essential.py over evaluator/steps.py: the one step model that
diagnose and the viewer use), each written as an instruction a person or an agent can follow: open the site, click
the element named by its role and accessible name, type a value into a field, choose an option, upload a file,
submit. The task's values become placeholders (evaluator/sop_values.py), so the SOP serves every task of its kind;
the step that sent the terminal request (taskspec/terminal.py) is marked. Deterministic: the same run gives the
same SOP, byte for byte. `--llm` rewrites this draft with a model (evaluator/sop_llm.py); `--json` gives the steps
with each element's signature (role, name, label, stable attributes: Cybernaut's critical-element configuration).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from evaluator.essential import Essential, essential_steps
from evaluator.same_site import canonical_url
from evaluator.sop_values import own_instruction, placeholdered, read_task, task_values
from rundir.reader import RunDir
from taskspec import volatile
from taskspec.terminal import terminal_order

SOP_VERSION = 1
STEPS_HEADING = "## Steps"
TERMINAL_MARK = "(final submission: the terminal step)"
CATCH_SLACK_S = 0.05
SIGNATURE_KEYS = ("tag", "type", "name_attr", "autocomplete", "href")


@dataclass
class SopStep:
    """One numbered instruction: what to do, on which element, with which value (placeholders in it)."""

    n: int
    action: str                      # navigate | click | fill | choose | check | uncheck | upload | submit | press
    text: str
    element: dict[str, Any] | None
    value: Any = None
    placeholders: list[str] = field(default_factory=list)
    url: str | None = None
    terminal: bool = False
    seq: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "action": self.action, "text": self.text, "value": self.value,
                "placeholders": self.placeholders, "url": self.url, "terminal": self.terminal, "seq": self.seq,
                "element": self.element}


@dataclass
class Sop:
    task_id: str | None
    instruction: str
    source: str
    agent: str | None
    steps: list[SopStep]
    parameters: dict[str, Any]       # placeholder → the value it stands for in the source run
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"version": SOP_VERSION, "task": self.task_id, "instruction": self.instruction, "source": self.source,
                "agent": self.agent, "parameters": self.parameters, "steps": [s.to_dict() for s in self.steps],
                "notes": self.notes}

    def markdown(self) -> str:
        lines = [f"# SOP: {self.task_id or 'task'}", "", f"Task: {self.instruction.strip()}", "",
                 f"Recorded from: {self.source} (agent {self.agent or 'unknown'})", ""]
        if self.parameters:
            lines += ["## Parameters", ""]
            lines += [f"- `{{{k}}}`: {v}" for k, v in self.parameters.items()]
            lines.append("")
        lines += [STEPS_HEADING, ""]
        lines += [f"{s.n}. {s.text}" for s in self.steps]
        lines.append("")
        return "\n".join(lines)


def _quote(value: Any) -> str:
    return '"' + " ".join(str(value).split())[:200] + '"'


def _role_name(target: dict[str, Any]) -> tuple[str, str]:
    role = str(target.get("role") or target.get("tag") or "element")
    name = " ".join(str(target.get("name") or target.get("text") or "").split())[:80]
    return role, name


def _element_words(target: dict[str, Any], fallback: str) -> str:
    role, name = _role_name(target)
    return f'the {role} "{name}"' if name else fallback


def signature(target: dict[str, Any]) -> dict[str, Any] | None:
    """The element as Cybernaut's critical-element configuration names it: role, accessible name, label, and the
    attributes that stay put between sessions (an id that looks generated, and positional selectors, are left out)."""
    if not target:
        return None
    role, name = _role_name(target)
    stable: dict[str, Any] = {k: target[k] for k in SIGNATURE_KEYS if target.get(k)}
    ident = target.get("id")
    if ident and not volatile.value_reason(str(ident)) and not re.search(r"\d{4,}|[:]", str(ident)):
        stable["id"] = ident
    sel = str(target.get("selector") or "")
    if sel and target.get("selector_ok") and "nth-" not in sel:
        stable["selector"] = sel
    return {"role": role, "name": name or None, "label": name or target.get("name_attr") or None,
            "stable": stable}


def _url(url: str | None, run: RunDir) -> str:
    """The URL with the local site's base written `{sites.NAME}` (filled again for the next task's sites)."""
    u = canonical_url(str(url or ""), run)
    return u.replace("}/", "}", 1) if u.startswith("{sites.") else u


def _instruction(e: Essential, run: RunDir, values: dict[str, Any]) -> tuple[str, str, Any, list[str]]:
    """(action, text, value, placeholders) of one essential step."""
    s, target = e.step, e.target
    kind = s.type
    if kind == "navigate":
        url = _url(s.url, run)
        return "navigate", f"Open {url}", None, []
    if kind == "tab_switch":
        return "navigate", f"Switch to the tab showing {_url(s.url, run) if s.url else s.target}", None, []
    element = _element_words(target, s.target)
    if kind == "fill":
        typ = str(target.get("type") or "").lower()
        if s.value == "[masked]":
            return "fill", f"Type the secret value (from the user's details) into {element}", None, []
        value, used = placeholdered(s.value, values)
        if typ == "checkbox":
            checked = (e.last.raw.get("checked") if e.last is not None else None)
            action = "uncheck" if checked is False else "check"
            return action, f"{action.capitalize()} {element}", None, []
        if typ == "radio":
            return "choose", f"Choose {element}", None, []
        if typ == "file":
            return "upload", f"Upload {value} with {element}", value, used
        if str(target.get("tag") or "") == "select":
            return "choose", f"Choose {_quote(value)} in {element}", value, used
        return "fill", f"Type {_quote(value)} into {element}", value, used
    if kind == "submit":
        return "submit", f"Submit the form ({s.target})", None, []
    if kind == "press Enter in":
        return "press", f"Press Enter in {element}", None, []
    return "click", f"Click {element}", None, []


def _terminal_index(items: list[Essential], run: RunDir) -> int | None:
    """The step that sent the run's terminal request (taskspec/terminal.py: the first caught one; in a person's
    hold-mode run the last one they blocked): the last step before it."""
    order = [c for c in terminal_order(list(run.interceptions)) if c.t is not None]
    if not order:
        return None
    t = order[0].t + CATCH_SLACK_S
    before = [i for i, e in enumerate(items) if e.step.t is not None and e.step.t <= t and e.step.type != "navigate"]
    return before[-1] if before else None


def write_sop(run: RunDir) -> Sop:
    """The SOP of a run (see the module docstring)."""
    task = read_task(run.path)
    values = task_values(task)
    items = essential_steps(run)
    terminal = _terminal_index(items, run)
    steps: list[SopStep] = []
    used_all: list[str] = []
    for i, e in enumerate(items):
        action, text, value, used = _instruction(e, run, values)
        if i == terminal:
            text = f"{text} {TERMINAL_MARK}"
        used_all += [u for u in used if u not in used_all]
        steps.append(SopStep(len(steps) + 1, action, text, signature(e.target) if e.step.type != "navigate" else
                             None, value, used, _url(e.step.url, run) if e.step.url else None, i == terminal,
                             e.step.seq))
    notes = []
    if terminal is None:
        notes.append("no terminal request was caught in this run: no step is marked as the final submission")
    if not task:
        notes.append("the run has no task.json: values are written as recorded (no placeholders)")
    return Sop(task_id=run.task_id or task.get("id"), instruction=own_instruction(task),
               source=str(run.path), agent=run.agent_name, steps=steps,
               parameters={k: values[k] for k in used_all}, notes=notes)


def steps_text(sop_md: str) -> str:
    """What an agent is given of an SOP file: its `## Steps` section (the numbered instructions), else the whole
    file (a hand-written SOP)."""
    lines = sop_md.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.strip().lower() == STEPS_HEADING.lower()), None)
    if start is None:
        return sop_md.strip()
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return "\n".join(lines[start + 1:end]).strip()
