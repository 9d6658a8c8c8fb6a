"""A run as a list of steps, the unit a person reads (the report's rows, diagnosis's numbering, evidence links).

Two ways to cut a run, chosen by what the agent logged:
- agent steps: an agent that logs a tool call per browser action (claude, OpenClaw, replay, step-wise command
  agents) gets one step per tool call: the assistant text before it, the call, the browser actions, requests,
  screenshots and console entries until the next call, and its result. Anything before the first call (the start
  page the pipeline opened) is step 0.
- action bursts: a person, or a program that logs one call for the whole task, gets one step per meaningful action
  (evaluator/steps.py: click, fill, submit, navigate, …) with the noise around it (the focus and keystrokes that
  led to it, the load and change that followed).
Every record lands in exactly one step, by time (a screenshot by the action it followed). One numbering: `n`.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from evaluator.console_layer import ConsoleEntry, read_console
from rundir.reader import Action, AgentMessage, HttpRecord, Interception, RunDir, Screenshot
from evaluator.steps import Step, steps as meaningful_steps, target_identity

CLOCK_SLACK_S = 0.05
TRAILING = {"input", "change", "blur", "keyup"}
LEADING = {"focus", "keydown", "keypress", "mousedown", "pointerdown", "mouseover", "hover", "tab_open"}
STATIC_TYPES = {"image", "stylesheet", "font", "script", "media", "manifest", "other", "ping", "preflight"}


@dataclass
class RunStep:
    """One step of a run: its span on the run clock and every record inside it."""

    n: int
    t0: float
    kind: str                                  # "agent" | "burst" | "start"
    t1: float | None = None
    call: AgentMessage | None = None
    result: AgentMessage | None = None
    messages: list[AgentMessage] = field(default_factory=list)   # everything in agent.jsonl for this step
    actions: list[Action] = field(default_factory=list)
    meaningful: list[Step] = field(default_factory=list)
    requests: list[HttpRecord] = field(default_factory=list)
    catches: list[Interception] = field(default_factory=list)
    screenshots: list[Screenshot] = field(default_factory=list)
    console: list[ConsoleEntry] = field(default_factory=list)

    @property
    def snapshot(self) -> AgentMessage | None:
        """The accessibility snapshot the agent took in this step (a tool_result carrying `snapshot`)."""
        return next((m for m in self.messages if isinstance(m.raw.get("snapshot"), dict)), None)

    @property
    def errors(self) -> list[str]:
        out = [f"console {c.level}: {c.text[:120]}" for c in self.console if c.is_error]
        out += [f"{h.method} {h.url[:100]}: {h.raw.get('error') or (h.response or {}).get('status')}"
                for h in self.requests if h.type == "request" and _failed(h) and not h.intercepted]
        out += [f"tool error: {str(m.content)[:120]}" for m in self.messages
                if m.role == "tool_result" and m.raw.get("is_error")]
        return out

    def summary(self) -> str:
        """One line: the browser steps it took ("fill textbox "Last name" = "Dough""), else the tool call."""
        if self.kind == "start":
            return "start: " + (self.meaningful[0].describe() if self.meaningful else "before the agent's first call")
        if self.meaningful:
            first = self.meaningful[0].describe()
            return first + (f" (+{len(self.meaningful) - 1} more)" if len(self.meaningful) > 1 else "")
        if self.call is not None:
            args, tool = _short_args(self.call.content), self.call.tool or "tool"
            return args if args.split(" ", 1)[0] == tool else f"{tool} {args}".strip()  # not "click click 'To'"
        if self.actions:
            return f"{self.actions[0].type} (+{len(self.actions) - 1} events)" if len(self.actions) > 1 \
                else self.actions[0].type
        return "(no browser action)"


def _failed(h: HttpRecord) -> bool:
    status = (h.response or {}).get("status") if isinstance(h.response, dict) else None
    return bool(h.raw.get("error")) and not h.raw.get("canceled") or (isinstance(status, int) and status >= 400)


def _call_text(content: Any) -> str:
    """A tool call's arguments as searchable text (values unescaped)."""
    if isinstance(content, dict):
        return " ".join(str(v) for v in content.values())
    return str(content or "")


def _short_args(content: Any, limit: int = 90) -> str:
    if isinstance(content, dict):
        s = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in content.items())
    else:
        s = str(content or "")
    s = " ".join(s.split())
    return s if len(s) <= limit else s[:limit] + "…"


def is_static(h: HttpRecord) -> bool:
    return str(h.resource_type or "").lower() in STATIC_TYPES


class Trajectory:
    """The steps of one run (see the module docstring)."""

    def __init__(self, run: RunDir) -> None:
        self.run = run
        self.console, self.console_notes = read_console(run.path)
        self.meaningful = meaningful_steps(run)
        calls = [m for m in run.agent if m.role == "tool_call" and m.t is not None]
        self.mode = "agent" if len(calls) >= 2 else "burst"
        self.steps: list[RunStep] = self._agent_steps(calls) if self.mode == "agent" else self._burst_steps()
        self._fill()

    # --- cutting ------------------------------------------------------------------------------------------------
    def _agent_steps(self, calls: list[AgentMessage]) -> list[RunStep]:
        """Step 0 is always the start (what the run did before the agent's first call): stable numbering."""
        return [RunStep(0, 0.0, "start")] + [RunStep(i + 1, float(c.t or 0), "agent", call=c)
                                              for i, c in enumerate(calls)]

    def _burst_steps(self) -> list[RunStep]:
        acts = [a for a in self.run.actions if a.t is not None]
        index = {a.seq: i for i, a in enumerate(acts) if a.seq is not None}
        starts: list[int] = []
        for s in self.meaningful:
            i = index.get(s.seq)
            if i is None or (starts and i <= starts[-1]):
                continue
            floor = starts[-1] + 1 if starts else 0
            while i > floor and acts[i - 1].type in LEADING:  # the focus and keystrokes that led to it
                i -= 1
            starts.append(i)
        if not starts:
            return [RunStep(1, 0.0, "burst")]
        out = [RunStep(k + 1, float(acts[i].t or 0), "burst") for k, i in enumerate(starts)]
        out[0].t0 = 0.0  # whatever came before the first step (the start page) belongs to it
        return out

    # --- filling ------------------------------------------------------------------------------------------------
    @cached_property
    def _starts(self) -> list[float]:
        """Where each step begins for browser records. An agent's log lines are stamped by another process and
        were measured up to ~20 ms late against the browser layers under load, so a browser record up to
        CLOCK_SLACK_S before a tool call (at most half the gap to the previous call) already belongs to it."""
        if self.mode != "agent":
            return [s.t0 for s in self.steps]
        out = [self.steps[0].t0]
        for prev, st in zip(self.steps, self.steps[1:]):
            out.append(st.t0 - min(CLOCK_SLACK_S, max(0.0, st.t0 - prev.t0) / 2))
        return out

    def index_at(self, t: float | None) -> int:
        """Index (into `steps`) of the step the time `t` of a browser record falls in."""
        if t is None:
            return len(self.steps) - 1
        return max(0, bisect_right(self._starts, t) - 1)

    def at(self, t: float | None) -> RunStep:
        return self.steps[self.index_at(t)]

    def _fill(self) -> None:
        for a, b in zip(self.steps, self.steps[1:]):
            a.t1 = b.t0
        by_seq: dict[int, RunStep] = {}
        last_on: dict[str, RunStep] = {}  # target identity -> step of the latest leading action on it
        for a in self.run.actions:
            ident = target_identity(a)
            st = self._slack_owner(a, self.at(a.t))
            if a.type in TRAILING and ident in last_on and self.mode == "agent":
                # The extension reports a field's input/change when the field loses focus, i.e. once the next
                # tool call has begun: they belong to the step that typed into the field, which is the one that
                # focused it unless a later call names the value (a click on the field, then `fill 'From' = …`).
                st = self._typed_by(a, last_on[ident], st)
            elif a.type not in TRAILING:
                last_on[ident] = st
            st.actions.append(a)
            if a.seq is not None:
                by_seq[a.seq] = st
        self._by_seq = by_seq
        for s in self.meaningful:
            st = by_seq.get(s.seq) if s.seq is not None else None
            (st or self.at(s.t)).meaningful.append(s)
        for h in self.run.http:
            if h.type == "websocket" and not h.url:
                continue  # the recorder's own channel
            self.at(h.t).requests.append(h)
        for c in self.run.interceptions:
            self.at(c.t).catches.append(c)
        for shot in self.run.screenshots:
            st = by_seq.get(shot.action_seq) if shot.action_seq is not None else None
            (st or self.at(shot.t)).screenshots.append(shot)
        for c in self.console:
            self.at(c.t).console.append(c)
        self._fill_agent()

    def _slack_owner(self, a: Action, st: RunStep) -> RunStep:
        """An action in the slack before a call (see `_starts`) stays with the previous call when that call names
        its element and this one does not (`fill 'Date of birth'` then `fill 'E-mail'`: the date's events, reported
        just before the e-mail call's stamp, are the date's)."""
        i = self.steps.index(st)
        if self.mode != "agent" or a.t is None or a.t >= st.t0 or i < 2 or st.call is None:
            return st
        prev = self.steps[i - 1]
        name = " ".join(str((a.target or {}).get("name") or "").split()) if isinstance(a.target, dict) else ""
        if prev.call is not None and len(name) >= 2 and name in _call_text(prev.call.content) \
                and name not in _call_text(st.call.content):
            return prev
        return st

    def _typed_by(self, a: Action, focused: RunStep, now: RunStep) -> RunStep:
        """Of the steps from the one that focused the field to the one running when its input was reported, the
        first whose tool call names the value typed; the focusing step when none does."""
        value = a.value if isinstance(a.value, str) else None
        if not value or len(value) < 2 or now.n <= focused.n or \
                (focused.call is not None and value in _call_text(focused.call.content)):
            return focused
        later = self.steps[self.steps.index(focused) + 1:self.steps.index(now) + 1]
        return next((s for s in later if s.call is not None and value in _call_text(s.call.content)),
                    focused)

    def _fill_agent(self) -> None:
        """Agent messages: the assistant text before a call belongs to that call's step; a result to its call's."""
        step_of_call = {id(s.call): s for s in self.steps if s.call is not None}
        by_id = {str(s.call.raw.get("id")): s for s in self.steps if s.call is not None and s.call.raw.get("id")}
        msgs = list(self.run.agent)
        for i, m in enumerate(msgs):
            if id(m) in step_of_call:
                st = step_of_call[id(m)]
            elif m.role == "tool_result" and str(m.raw.get("id") or "") in by_id:
                st = by_id[str(m.raw["id"])]
            elif m.role == "assistant" and self.mode == "agent":
                nxt = next((x for x in msgs[i + 1:] if x.role in ("tool_call", "assistant")), None)
                st = step_of_call.get(id(nxt)) if nxt is not None and nxt.role == "tool_call" else None
                st = st or self._msg_step(m.t)
            else:
                st = self._msg_step(m.t)
            st.messages.append(m)
            if m.role == "tool_result" and st.call is not None and st.result is None \
                    and (m.tool in (None, st.call.tool)):
                st.result = m

    def _msg_step(self, t: float | None) -> RunStep:
        """The step of an agent message by its own clock (no slack: it is stamped like the calls)."""
        if t is None:
            return self.steps[-1]
        return self.steps[max(0, bisect_right([s.t0 for s in self.steps], t) - 1)]

    # --- lookups ------------------------------------------------------------------------------------------------
    def step_of_seq(self, seq: int | None) -> RunStep | None:
        return self._by_seq.get(seq) if seq is not None else None

    def number_of(self, step: Step | None) -> int | None:
        """The report's step number of a meaningful step (THE numbering used everywhere)."""
        if step is None:
            return None
        st = self.step_of_seq(step.seq) or self.at(step.t)
        return st.n

    def step(self, n: int | None) -> RunStep | None:
        return next((s for s in self.steps if s.n == n), None)

    def before_after(self, st: RunStep) -> tuple[Screenshot | None, Screenshot | None]:
        """The page as the step found it (the last screenshot taken before its first action) and as it left it (the
        first one taken after its last action), by time over the whole run: a fast agent's step may keep no
        screenshot of its own, and the next step's first one is then its "after", never its "before". A step
        without actions is taken at its start. None: no such screenshot exists (the report says so)."""
        times = [a.t for a in st.actions if a.t is not None]
        first, last = (min(times), max(times)) if times else (st.t0, st.t0)
        shots = sorted((s for s in self.run.screenshots if s.t is not None), key=lambda s: s.t)
        before = next((s for s in reversed(shots) if s.t < first), None)
        after = next((s for s in shots if s.t > last), None)
        return before, after
