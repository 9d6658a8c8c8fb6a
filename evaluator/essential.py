"""The steps that carry a task: a run's meaningful steps (evaluator/steps.py) without the incidental ones, for the
SOP writer (evaluator/sop.py) and the consistency score (evaluator/consistency.py).

steps.py already drops focus, keystrokes, scrolls and container clicks, and folds a click into the field it fills.
Here, on top, what Cybernaut calls incidental and two runs of one task may or may not do:
- a click on something that is not a control (plain text, an error message, a label-less element: no role);
- the same step twice in a row (a double click, the start page opened by the run and again by the agent);
- a navigation the previous click, Enter or submit caused (a link followed, a form posted): the click is the step;
- a click retried: the same control clicked again later on the same page, after fields were filled in between
  (a form sent too early, corrected, sent again): only the last one counts.
The alignment itself stays diagnose's (evaluator/diagnose.py `align`); these are its input.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evaluator.steps import Step, steps, target_identity
from rundir.reader import Action, RunDir

CONTROL_ROLES = {"button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox",
                 "menuitemradio", "option", "combobox", "textbox", "searchbox", "listbox", "slider", "spinbutton",
                 "treeitem", "gridcell", "row", "cell", "columnheader", "img"}
CONTROL_TAGS = {"a", "button", "input", "select", "textarea", "summary", "option", "label"}
CAUSED_NAV_S = 3.0          # a navigation this soon after a click/Enter/submit is its consequence
FOLLOWED = {"link", "form_submit", "reload_form"}   # transitions that say "a click caused it"
CAUSES = {"click", "submit", "press Enter in"}


@dataclass
class Essential:
    """One step that carries the task, with the browser action it names (its element descriptor) and the final
    value event of a fill (a checkbox's `checked`, a select's value)."""

    step: Step
    action: Action | None
    last: Action | None

    @property
    def target(self) -> dict[str, Any]:
        t = (self.last or self.action)
        return t.target if t is not None and isinstance(t.target, dict) else {}


def _is_control(target: dict[str, Any]) -> bool:
    role = str(target.get("role") or "").lower()
    tag = str(target.get("tag") or "").lower()
    return role in CONTROL_ROLES or tag in CONTROL_TAGS or bool(target.get("href"))


def _page(s: Step) -> str:
    return str(s.url or "").split("#", 1)[0]


def essential_steps(run: RunDir) -> list[Essential]:
    """The run's steps without the incidental ones (see the module docstring), in run order."""
    acts = list(run.actions)
    by_seq = {a.seq: a for a in acts if a.seq is not None}
    order = {a.seq: i for i, a in enumerate(acts) if a.seq is not None}
    raw = steps(run)
    out: list[Essential] = []
    for i, s in enumerate(raw):
        act = by_seq.get(s.seq) if s.seq is not None else None
        target = act.target if act is not None and isinstance(act.target, dict) else {}
        if s.type == "click" and not _is_control(target):
            continue
        if s.type == "navigate" and out:
            prev = out[-1].step
            transition = str(act.raw.get("transition") or "") if act is not None else ""
            caused = prev.type in CAUSES and s.t is not None and prev.t is not None and s.t - prev.t <= CAUSED_NAV_S
            if transition in FOLLOWED or (caused and transition not in ("typed", "auto_bookmark")):
                continue
        if out and out[-1].step.key == s.key and out[-1].step.value == s.value:
            continue  # the same step again
        last = None
        if s.type == "fill" and s.seq in order:
            nxt = raw[i + 1].seq if i + 1 < len(raw) else None
            stop = order.get(nxt, len(acts)) if nxt is not None else len(acts)
            ident = s.identity
            last = next((a for a in reversed(acts[order[s.seq]:stop])
                         if a.type in ("input", "change") and target_identity(a) == ident), None)
        out.append(Essential(s, act, last))
    return _drop_retried(out)


def _drop_retried(items: list[Essential]) -> list[Essential]:
    """A click on a control that is clicked again later on the same page, with a field filled in between and no
    navigation, was sent too early: keep the later one only."""
    keep = []
    for i, e in enumerate(items):
        s = e.step
        if s.type == "click":
            later = items[i + 1:]
            again = next((j for j, x in enumerate(later) if x.step.key == s.key), None)
            if again is not None:
                between = later[:again]
                if any(x.step.type == "fill" for x in between) and \
                        not any(x.step.type in ("navigate", "tab_switch") for x in between) and \
                        _page(later[again].step) == _page(s):
                    continue
        keep.append(e)
    return keep
