"""Runs derived from recorded ones by editing actions.jsonl the way the browser would have recorded the change
(events the extension emits, their seq renumbered, times between their neighbours). Used where a variation is
functionally trivial or a pure omission, so that recording it again would show nothing more."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Callable


def _actions(run: Path) -> list[dict[str, Any]]:
    return [json.loads(ln) for ln in (run / "actions.jsonl").read_text().splitlines() if ln.strip()]


def derive(src: Path, dst: Path, edit: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]) -> Path:
    """A copy of run `src` at `dst` whose actions are `edit(actions)`, renumbered."""
    shutil.copytree(src, dst)
    acts = edit(_actions(src))
    for i, a in enumerate(acts, start=1):
        a["seq"] = i
    (dst / "actions.jsonl").write_text("".join(json.dumps(a) + "\n" for a in acts))
    return dst


def _index(acts: list[dict[str, Any]], kind: str, ident: str | None = None, name: str | None = None) -> int:
    return next(i for i, a in enumerate(acts) if a["type"] == kind
                and (ident is None or (a.get("target") or {}).get("id") == ident)
                and (name is None or (a.get("target") or {}).get("name") == name))


def scroll_and_click_before_typing(acts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Scrolls (while and at rest) before "Search flights" and before the passenger form, and a click into "Last
    name" between its focus and its typing: what a person who scrolls and clicks into a field leaves behind."""
    acts = [dict(a) for a in acts]
    i = _index(acts, "focus", "p1-last_name")
    focus = acts[i]
    click = {**focus, "type": "click", "t": focus["t"] + 0.001, "x": 300, "y": 420, "button": 0, "detail": 1,
             "trusted": True}
    acts.insert(i + 1, click)
    for where in (_index(acts, "click", name="Search flights"), _index(acts, "focus", "p1-first_name")):
        at = acts[where]
        base = {k: at[k] for k in ("url", "frame_url", "tab", "frame", "target_id") if k in at}
        acts[where:where] = [{**base, "type": "scroll", "t": at["t"] - 0.003, "x": 0, "y": 180, "final": False},
                             {**base, "type": "scroll", "t": at["t"] - 0.002, "x": 0, "y": 240, "final": True}]
    return acts


def skip_nonstop_filter(acts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The "Nonstop only" filter never touched (its focus, click, input and change gone)."""
    return [a for a in acts if (a.get("target") or {}).get("id") != "nonstop-only"]
