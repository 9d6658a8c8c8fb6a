"""What a replay will do: a recorded run's actions.jsonl turned into a list of steps (pure data, no browser).

Why a plan: the extension records consequences next to causes (a click on a label also fires a click on its input;
Enter fires a submit; a form post commits a navigation). Replaying every record would do things twice, so the plan
keeps only causes: trusted clicks (`detail` > 0), typing bursts (their final value, placed where the burst began),
special keys, select/checkbox/file changes, final scroll offsets, and typed top-level navigations.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from rundir.records import ACTIONS, read_jsonl

SPECIAL_KEYS = {"Enter", "Escape", "Tab", "ArrowDown", "ArrowUp", "ArrowLeft", "ArrowRight", "PageDown", "PageUp",
                "Home", "End"}
TYPED_TRANSITIONS = {"typed", "auto_bookmark", "generated", "auto_toplevel", "keyword", "start_page"}
TEXT_TYPES = {"input", "text", "email", "tel", "url", "search", "number", "password", "textarea", "date", "time",
              "datetime-local", "month", "week"}


class ReplayError(Exception):
    """The recorded run cannot be replayed (no actions, a masked password with no substitute)."""


@dataclass
class ReplayStep:
    kind: str                       # goto | click | fill | key | select | check | upload | scroll
    t: float                        # when it happened in the recorded run
    seq: int
    target: dict[str, Any] | None = None
    value: Any = None
    x: float | None = None
    y: float | None = None
    tab: Any = None
    frame: Any = 0
    frame_url: str | None = None
    url: str | None = None
    masked: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        tgt = self.target or {}
        what = tgt.get("name") or tgt.get("text") or tgt.get("selector") or ""
        val = "•••" if self.masked else self.value
        return f"{self.kind} {what!r}" + (f" = {val!r}" if val is not None else "") + (
            f" {self.url}" if self.kind == "goto" else "")


def _same_target(a: dict | None, b: dict | None) -> bool:
    if not a or not b:
        return False
    return (a.get("selector"), a.get("xpath")) == (b.get("selector"), b.get("xpath"))


def _is_text_field(target: dict | None) -> bool:
    if not target:
        return False
    return target.get("tag") == "textarea" or (target.get("tag") == "input" and
                                               (target.get("type") or "text").lower() in TEXT_TYPES) or (
        target.get("tag") not in ("input", "select", "textarea") and target.get("role") == "textbox")


def load_actions(run_dir: str | Path) -> list[dict[str, Any]]:
    path = Path(run_dir) / ACTIONS
    if not path.exists():
        raise ReplayError(f"{path}: no such file (is {run_dir} a recorded run?)")
    records, _bad = read_jsonl(path)
    return sorted(records, key=lambda r: (float(r.get("t", 0)), int(r.get("seq", 0))))


def build_plan(actions: list[dict[str, Any]]) -> list[ReplayStep]:
    """The steps to replay, in order (see the module docstring for what is kept)."""
    steps: list[ReplayStep] = []
    used_inputs: set[int] = set()
    started_bursts: set[int] = set()
    for i, rec in enumerate(actions):
        kind = rec.get("type")
        base = dict(t=float(rec.get("t", 0)), seq=int(rec.get("seq", i)), target=rec.get("target"),
                    tab=rec.get("tab"), frame=rec.get("frame", 0), frame_url=rec.get("frame_url"))
        if kind == "navigate":
            if rec.get("frame", 0) in (0, None) and rec.get("via") != "history" and (
                    rec.get("transition") in TYPED_TRANSITIONS) and str(rec.get("url", "")).startswith("http"):
                steps.append(ReplayStep("goto", url=rec["url"], **{**base, "target": None}))
        elif kind == "click":
            if rec.get("trusted") is False or not rec.get("detail"):
                continue  # synthetic: a label's forwarded click, a keyboard activation, a script's el.click()
            tgt = rec.get("target") or {}
            if tgt.get("tag") in ("select", "option") or (tgt.get("tag") == "input" and tgt.get("type") == "file"):
                continue  # the change record carries the choice; a click would open a native picker
            steps.append(ReplayStep("click", x=rec.get("x"), y=rec.get("y"), **base))
        elif kind == "keydown":
            key = rec.get("key")
            if key is None and rec.get("masked") or (key and len(key) == 1):
                # A typing burst: type its final value now, at the burst's start (keys like Enter may follow
                # before the burst's `input` record is emitted).
                j = _burst_input(actions, i, used_inputs)
                if j is not None and j not in started_bursts:
                    started_bursts.add(j)
                    used_inputs.add(j)
                    steps.append(_fill_step(actions[j], base))
                continue
            if key in SPECIAL_KEYS and not (rec.get("ctrl") or rec.get("meta") or rec.get("alt")):
                steps.append(ReplayStep("key", value=key, **base))
        elif kind == "input":
            if i in used_inputs or not _is_text_field(rec.get("target")):
                continue  # selects, checkboxes and file inputs: their `change` record carries the choice
            used_inputs.add(i)
            steps.append(_fill_step(rec, base))
        elif kind == "change":
            tgt = rec.get("target") or {}
            if tgt.get("tag") == "select":
                steps.append(ReplayStep("select", value=rec.get("value"), extra={"text": rec.get("text")}, **base))
            elif tgt.get("type") in ("checkbox", "radio"):
                steps.append(ReplayStep("check", value=bool(rec.get("checked")), **base))
            elif tgt.get("type") == "file":
                names = [n.strip() for n in str(rec.get("value") or "").split(",") if n.strip()]
                steps.append(ReplayStep("upload", value=names, **base))
            elif _is_text_field(tgt) and not any(s.kind == "fill" and _same_target(s.target, tgt) and
                                                 s.value == rec.get("value") for s in steps[-3:]):
                steps.append(_fill_step(rec, base))
        elif kind == "scroll":
            if rec.get("final") and rec.get("y") is not None:
                steps.append(ReplayStep("scroll", x=rec.get("x"), y=rec.get("y"), **base))
    return steps


def _fill_step(rec: dict[str, Any], base: dict[str, Any]) -> ReplayStep:
    return ReplayStep("fill", value=rec.get("value"), masked=bool(rec.get("masked")),
                **{**base, "target": rec.get("target"), "frame_url": rec.get("frame_url") or base["frame_url"]})


def _burst_input(actions: list[dict[str, Any]], i: int, used: set[int]) -> int | None:
    """Index of the `input` record ending the typing burst that the keydown at `i` belongs to."""
    tgt = actions[i].get("target")
    for j in range(i + 1, len(actions)):
        rec = actions[j]
        if rec.get("type") == "input" and _same_target(rec.get("target"), tgt):
            return None if j in used else j
        if rec.get("type") == "click" and rec.get("detail") and not _same_target(rec.get("target"), tgt):
            return None
    return None


# ---- URLs of the recorded run → URLs of this run (the local sites listen on random ports) ---------------------------

def _origin(url: str) -> str:
    p = urlsplit(url)
    return f"{p.scheme}://{p.netloc}" if p.scheme and p.netloc else ""


def origin_map(recorded: dict[str, Any], current: dict[str, Any]) -> dict[str, str]:
    """Old origin → new origin, from the recorded run's task/sites and this run's (matched by site name)."""
    mapping: dict[str, str] = {}
    old_sites, new_sites = recorded.get("sites") or {}, current.get("sites") or {}
    for name, old in old_sites.items():
        if name in new_sites and _origin(old) and _origin(new_sites[name]):
            mapping[_origin(old)] = _origin(new_sites[name])
    old_start, new_start = recorded.get("start_url") or "", current.get("start_url") or ""
    if _origin(old_start) and _origin(new_start) and _origin(old_start) not in mapping:
        mapping[_origin(old_start)] = _origin(new_start)
    return {k: v for k, v in mapping.items() if k != v}


def map_url(url: str | None, mapping: dict[str, str]) -> str | None:
    if not url or not mapping:
        return url
    p = urlsplit(url)
    new = mapping.get(f"{p.scheme}://{p.netloc}")
    if not new:
        return url
    q = urlsplit(new)
    return urlunsplit((q.scheme, q.netloc, p.path, p.query, p.fragment))


def recorded_context(run_dir: str | Path) -> dict[str, Any]:
    """start_url and sites of a recorded run (task.json and manifest.json written by `clawrec run`)."""
    run_dir = Path(run_dir)
    out: dict[str, Any] = {}
    for name in ("task.json", "manifest.json"):
        try:
            data = json.loads((run_dir / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            out.setdefault("start_url", data.get("start_url") or (data.get("task") or {}).get("start_url"))
            if data.get("sites"):
                out["sites"] = data["sites"]
    return out
