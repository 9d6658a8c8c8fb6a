"""`clawrec sop RUN`: a standard operating procedure from a run (usually a person's reference), after Cybernaut.

The steps are the run's essential steps (evaluator/essential.py over evaluator/steps.py: the one step model that
diagnose and the viewer use), each written as an instruction a person or an agent can follow: open the site, click
the element named by its role and accessible name, type a value into a field, choose an option, upload a file,
submit. The task's values become placeholders (evaluator/sop_values.py), so the SOP serves every task of its kind;
the step that sent the terminal request (taskspec/terminal.py) is marked. An SOP never carries the recorded run's
values (its person's name, e-mail, phone…): not in a step, an element's name, a URL or the task line; its Parameters
section says what each placeholder is, from the task, and each task fills in its own values (clawrec/sop_given.py). Deterministic: the same run gives the
same SOP, byte for byte. `--llm` rewrites this draft with a model (evaluator/sop_llm.py); `--json` gives the steps
with each element's signature (role, name, label, stable attributes: Cybernaut's critical-element configuration).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from evaluator.essential import Essential, essential_steps
from evaluator.same_site import canonical_url
from evaluator.sop_values import (
    PLACEHOLDER, describe, in_url, own_instruction, placeholdered, read_task, task_values,
)
from rundir.reader import RunDir
from taskspec import volatile
from taskspec.terminal import terminal_order

SOP_VERSION = 2  # 2: `parameters` maps each placeholder to what it is (1: to the recorded run's value)
STEPS_HEADING = "## Steps"
PARAMETERS_HEADING = "## Parameters"
PARAMETER_LINE = re.compile(r"^\s*[-*] `?\{[^}]+\}`?\s*:")
PARAMETERS_INTRO = "Each task fills these with its own values when the SOP is given to an agent (`clawrec run --sop`):"
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
    parameters: dict[str, str]       # placeholder → what it stands for, from the task (never the run's value)
    notes: list[str] = field(default_factory=list)
    # the recorded run's values, only to refuse a rewrite that writes them in (evaluator/sop_llm.py); never written
    examples: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {"version": SOP_VERSION, "task": self.task_id, "instruction": self.instruction, "source": self.source,
                "agent": self.agent, "parameters": self.parameters, "steps": [s.to_dict() for s in self.steps],
                "notes": self.notes}

    def markdown(self) -> str:
        lines = [f"# SOP: {self.task_id or 'task'}", "", f"Task: {self.instruction.strip()}", "",
                 f"Recorded from: {self.source} (agent {self.agent or 'unknown'})", ""]
        if self.parameters:
            lines += [PARAMETERS_HEADING, "", PARAMETERS_INTRO, ""]
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


def _element_words(target: dict[str, Any], fallback: str, values: dict[str, Any]) -> tuple[str, list[str]]:
    role, name = _role_name(target)
    shown, used = placeholdered(name, values) if name else (name, [])  # a button that shows the user's name
    return (f'the {role} "{shown}"' if name else fallback), used


def signature(target: dict[str, Any], values: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """The element as Cybernaut's critical-element configuration names it: role, accessible name, label, and the
    attributes that stay put between sessions (an id that looks generated, and positional selectors, are left out).
    The task's `values` in any of them are written as placeholders."""
    if not target:
        return None
    role, name = _role_name(target)
    if values:
        target = {k: (placeholdered(v, values)[0] if isinstance(v, str) else v) for k, v in target.items()}
        name = str(placeholdered(name, values)[0]) if name else name
    stable: dict[str, Any] = {k: target[k] for k in SIGNATURE_KEYS if target.get(k)}
    ident = target.get("id")
    if ident and not volatile.value_reason(str(ident)) and not re.search(r"\d{4,}|[:]", str(ident)):
        stable["id"] = ident
    sel = str(target.get("selector") or "")
    if sel and target.get("selector_ok") and "nth-" not in sel:
        stable["selector"] = sel
    return {"role": role, "name": name or None, "label": name or target.get("name_attr") or None,
            "stable": stable}


def _url(url: str | None, run: RunDir, values: dict[str, Any] | None = None) -> str:
    """The URL with the local site's base written `{sites.NAME}` (filled again for the next task's sites) and the
    task's values in it as placeholders."""
    u = canonical_url(str(url or ""), run)
    u = u.replace("}/", "}", 1) if u.startswith("{sites.") else u
    return in_url(u, values)[0] if values else u


def _instruction(e: Essential, run: RunDir, values: dict[str, Any]) -> tuple[str, str, Any, list[str]]:
    """(action, text, value, placeholders) of one essential step."""
    s, target = e.step, e.target
    kind = s.type
    if kind == "navigate":
        url = _url(s.url, run, values)
        return "navigate", f"Open {url}", None, _used(url)
    if kind == "tab_switch":
        where = _url(s.url, run, values) if s.url else s.target
        return "navigate", f"Switch to the tab showing {where}", None, _used(where)
    element, named = _element_words(target, s.target, values)
    if kind == "fill":
        typ = str(target.get("type") or "").lower()
        if s.value == "[masked]":
            return "fill", f"Type the secret value (from the user's details) into {element}", None, named
        value, used = placeholdered(s.value, values)
        used = [*used, *(k for k in named if k not in used)]
        if typ == "checkbox":
            checked = (e.last.raw.get("checked") if e.last is not None else None)
            action = "uncheck" if checked is False else "check"
            return action, f"{action.capitalize()} {element}", None, named
        if typ == "radio":
            return "choose", f"Choose {element}", None, named
        if typ == "file":
            return "upload", f"Upload {value} with {element}", value, used
        if str(target.get("tag") or "") == "select":
            return "choose", f"Choose {_quote(value)} in {element}", value, used
        return "fill", f"Type {_quote(value)} into {element}", value, used
    if kind == "submit":
        target_words, used = placeholdered(s.target, values)
        return "submit", f"Submit the form ({target_words})", None, used
    if kind == "press Enter in":
        return "press", f"Press Enter in {element}", None, named
    return "click", f"Click {element}", None, named


def _used(text: str) -> list[str]:
    """The task-value placeholders (not `{sites.NAME}`) a text carries."""
    return list(dict.fromkeys(m.group(1) for m in PLACEHOLDER.finditer(text)))


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
        steps.append(SopStep(len(steps) + 1, action, text, signature(e.target, values) if e.step.type != "navigate"
                             else None, value, used, _url(e.step.url, run, values) if e.step.url else None,
                             i == terminal, e.step.seq))
    notes = []
    if terminal is None:
        notes.append("no terminal request was caught in this run: no step is marked as the final submission")
    if not task:
        notes.append("the run has no task.json: values are written as recorded (no placeholders)")
    instruction, used = placeholdered(own_instruction(task), values)  # the recorded task's own values: placeholders
    used_all += [u for u in used if u not in used_all]
    return Sop(task_id=run.task_id or task.get("id"), instruction=str(instruction or ""),
               source=str(run.path), agent=run.agent_name, steps=steps,
               parameters={k: describe(k) for k in used_all}, notes=notes,
               examples={k: values[k] for k in used_all})


def steps_text(sop_md: str) -> str:
    """What an agent is given of an SOP file: its `## Steps` section (the numbered instructions); the steps of the
    `--json` form; else the whole file (a hand-written SOP) without a `## Parameters` section (the placeholders'
    descriptions: filled in, they would pair this task's values with words meant for the SOP's reader)."""
    data = _json_sop(sop_md)
    if data is not None:
        return "\n".join(f"{s.get('n', i)}. {s.get('text', '')}" for i, s in enumerate(data["steps"], start=1))
    lines = sop_md.splitlines()
    start = _heading(lines, STEPS_HEADING)
    if start is None:
        params = _heading(lines, PARAMETERS_HEADING)
        if params is not None:  # the heading, its intro and its `- {placeholder}: …` lines
            end = params + 1
            while end < len(lines) and (not lines[end].strip() or lines[end].strip() == PARAMETERS_INTRO
                                        or PARAMETER_LINE.match(lines[end])):
                end += 1
            lines = lines[:params] + lines[end:]
        return "\n".join(lines).strip()
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return "\n".join(lines[start + 1:end]).strip()


def _heading(lines: list[str], heading: str) -> int | None:
    return next((i for i, ln in enumerate(lines) if ln.strip().lower() == heading.lower()), None)


def _json_sop(text: str) -> dict[str, Any] | None:
    """The `clawrec sop --json` form (a dict with a list of steps), else None."""
    if not text.lstrip().startswith("{"):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    ok = isinstance(data, dict) and isinstance(data.get("steps"), list)
    return data if ok and all(isinstance(s, dict) for s in data["steps"]) else None
