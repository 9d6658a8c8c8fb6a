"""The report's step list: one collapsible row per step (evaluator/trajectory.py) with a one-line summary; opened,
it shows the agent's messages, the browser actions, the requests (click one for the request panel), the caught
request, console entries, the before/after screenshots (the last one taken before the step's first action, the first
one after its last action: trajectory.before_after) and the accessibility snapshot the agent took.

Every record gets an anchor id `rec-<file>-<line>` so that verdict evidence (`interceptions.jsonl line 1`) can jump
to it. Requests are described for the script in `requests` (headers and bodies redacted at recording, request and
response bodies capped here).
"""

from __future__ import annotations

import json
from typing import Any

from evaluator.console_layer import CONSOLE
from evaluator import report_writes
from evaluator.report_html import clip, esc, fmt_t, short
from evaluator.report_media import Media
from evaluator.trajectory import RunStep, Trajectory, is_static
from rundir import records as R
from rundir.reader import HttpRecord, Interception

BODY_CAP = 4000      # characters of a request body shown in the request panel
SNAPSHOT_CAP = 20000


def anchor(file: str, line: int) -> str:
    return f"rec-{file.replace('/', '-').replace('.', '-')}-{line}"


def response_body(body: Any) -> str | None:
    """The recorded response body as text for the request panel (JSON indented), or what became of it."""
    if not isinstance(body, dict):
        return None
    value = body.get("value")
    if value is None:
        size = body.get("size")
        return f"({body.get('kind')}" + (f", {size} bytes" if isinstance(size, int) else "") + ")"
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=1, default=str)
    return clip(text, BODY_CAP)


def request_data(h: HttpRecord, st: RunStep) -> dict[str, Any]:
    resp = h.response if isinstance(h.response, dict) else {}
    return {"kind": "request", "method": h.method, "url": h.url, "status": resp.get("status"),
            "status_text": resp.get("status_text"), "type": h.resource_type, "t": h.t, "step": st.n,
            "target": h.target, "frame_url": h.raw.get("frame_url"), "tab": h.raw.get("target_id"),
            "request_headers": h.headers, "response_headers": resp.get("headers"), "mime": resp.get("mime"),
            "body": clip(h.body.get("value") if isinstance(h.body, dict) and "value" in h.body else h.body,
                         BODY_CAP) if h.body is not None else None,
            "response_body": response_body(resp.get("body")),
            "timing": h.timing, "size": h.raw.get("size"), "error": h.raw.get("error"),
            "intercepted": h.intercepted or None, "line": h.line, "file": R.HTTP}


HELD_BY = {"page": "held by the person (hold mode), blocked on the task page",
           "terminal": "held by the person (hold mode), blocked in the terminal",
           "timeout": "held (hold mode), blocked: no answer before the timeout",
           "end of run": "held (hold mode), blocked: the session ended"}


def catch_what(c: Interception) -> str:
    """Who stopped a recorded request, in words: a rule's catch names its rule; hold mode's block (a person's, or
    its timeout's) names no rule, it says it was held (interceptions.jsonl `held.by`)."""
    if c.action == "held_blocked" or c.held:
        by = str((c.held or {}).get("by") or "")
        return HELD_BY.get(by, f"held (hold mode), blocked by {by}" if by else "held (hold mode), blocked")
    return f"rule {c.rule} → {c.action or 'blocked'}" if c.rule is not None else f"{c.action or 'blocked'} (no rule)"


def catch_data(c: Interception, st: RunStep) -> dict[str, Any]:
    held = c.action == "held_blocked" or bool(c.held)
    return {"kind": "catch", "method": c.method, "url": c.url,
            "status": catch_what(c) if held else f"caught: {c.action or 'blocked'}",
            "t": c.t, "step": st.n, "rule": None if held else c.rule, "target": c.target_type, "frame_url": c.frame_url,
            "tab": c.tab_url, "request_headers": c.headers, "query": c.query,
            "payload": clip(c.body, BODY_CAP * 4), "raw": clip(c.raw_body, BODY_CAP), "line": c.line,
            "file": R.INTERCEPTIONS}


class StepList:
    """HTML of the steps of one run, and the request descriptions the page's script shows on click."""

    def __init__(self, tr: Trajectory, media: Media, side: str = "agent") -> None:
        self.tr, self.media, self.side = tr, media, side
        self.requests: dict[str, dict[str, Any]] = {}
        self.writes: dict[int, dict[str, Any]] = {}  # http.jsonl line -> verdict write (evaluator/report_writes.py)

    def _img(self, shot: Any, label: str) -> str:
        key = self.media.key(self.tr.run.screenshot_file(shot)) if shot is not None else None
        if key is None:
            when = "before the step's first action" if label == "before" else "after the step's last action"
            return (f"<div class='shot none'>{esc(label)}: <span class=muted>no screenshot (none was kept from "
                    f"{when})</span></div>")
        return (f"<figure class=shot><img data-m='{key}' alt='{esc(label)} screenshot' data-t='{shot.t or 0:.3f}'>"
                f"<figcaption>{esc(label)} · {fmt_t(shot.t)}</figcaption></figure>")

    def _agent(self, st: RunStep) -> str:
        rows = []
        for m in st.messages:
            cls = "err" if m.raw.get("is_error") or m.raw.get("error") else ""
            label = m.role + (f" {m.tool}" if m.tool else "")
            body = m.content if not isinstance(m.raw.get("snapshot"), dict) else \
                "[the accessibility snapshot, shown above]"
            rows.append(f"<tr class='l-agent {cls}' id='{anchor(R.AGENT, m.line)}'><td class=t>{fmt_t(m.t)}</td>"
                        f"<td><b>{esc(label)}</b></td><td><pre>{short(body, 1500)}</pre></td></tr>")
        return "".join(rows)

    def _actions(self, st: RunStep) -> str:
        rows = []
        for a in st.actions:
            t = a.target if isinstance(a.target, dict) else {}
            name = t.get("name") or t.get("text") or t.get("selector") or ""
            what = f"<b>{esc(a.type)}</b> {esc(t.get('tag'))} {short(name, 100)}"
            if a.value is not None:
                what += f" = <code>{short(a.value, 200)}</code>"
            if a.key:
                what += f" key <code>{esc(a.key)}</code>"
            if a.type in ("navigate", "load") or not t:
                what += f" <span class=muted>{short(a.url or '', 200)}</span>"
            rows.append(f"<tr class=l-action id='{anchor(R.ACTIONS, a.line)}'><td class=t>{fmt_t(a.t)}</td>"
                        f"<td>seq {esc(a.seq)}</td><td>{what}</td></tr>")
        return "".join(rows)

    def _requests(self, st: RunStep) -> str:
        rows = []
        for c in st.catches:
            rid = f"{self.side}-c{c.line}"
            self.requests[rid] = catch_data(c, st)
            rows.append(f"<tr class='l-http caught req' data-req='{rid}' id='{anchor(R.INTERCEPTIONS, c.line)}'>"
                        f"<td class=t>{fmt_t(c.t)}</td><td><span class='badge l-caught'>"
                        f"{'held' if c.action == 'held_blocked' or c.held else 'caught'}</span></td>"
                        f"<td><b>{esc(c.method)} {short(c.url, 300)}</b> {esc(catch_what(c))}</td>"
                        "</tr>")
        for h in st.requests:
            if h.type == "websocket":
                rows.append(f"<tr class=l-http id='{anchor(R.HTTP, h.line)}'><td class=t>{fmt_t(h.t)}</td>"
                            f"<td>WS {esc(h.event)}</td><td>{short(h.url, 200)} <code>{short(h.payload, 200)}</code>"
                            "</td></tr>")
                continue
            rid = f"{self.side}-h{h.line}"
            self.requests[rid] = request_data(h, st)
            status = (h.response or {}).get("status") if isinstance(h.response, dict) else None
            cls = " caught" if h.intercepted else (" static" if is_static(h) else "")
            err = " err" if h.raw.get("error") and not h.intercepted and not h.raw.get("canceled") or \
                (isinstance(status, int) and status >= 400) else ""
            rows.append(f"<tr class='l-http req{cls}{err}' data-req='{rid}' id='{anchor(R.HTTP, h.line)}'>"
                        f"<td class=t>{fmt_t(h.t)}</td><td>{esc(h.method)} "
                        f"{esc(status if status is not None else h.raw.get('error', ''))}</td>"
                        f"<td>{short(h.url, 300)} <span class=muted>{esc(h.resource_type)}</span></td></tr>")
            if h.line in self.writes:
                rows.append(report_writes.row(self.writes[h.line]))
        return "".join(rows)

    def _console(self, st: RunStep) -> str:
        return "".join(
            f"<tr class='l-console{' err' if c.is_error else ''}' id='{anchor(CONSOLE, c.line)}'>"
            f"<td class=t>{fmt_t(c.t)}</td><td>{esc(c.kind)} {esc(c.level)}</td><td><pre>{short(c.text, 1000)}</pre>"
            f"<span class=muted>{short(c.url or '', 200)}</span></td></tr>" for c in st.console)

    def step(self, st: RunStep) -> str:
        before, after = self.tr.before_after(st)
        errors = st.errors
        badges = ""
        if st.catches or any(h.intercepted for h in st.requests):
            badges += "<span class='badge l-caught'>caught</span>"
        badges += report_writes.badge([self.writes[h.line] for h in st.requests if h.line in self.writes])
        if errors:
            badges += f"<span class='badge err'>{len(errors)} error{'s' if len(errors) > 1 else ''}</span>"
        n_req = sum(1 for h in st.requests if not is_static(h))
        counts = f"{len(st.actions)} actions · {n_req} requests" + (f" · {len(st.console)} console"
                                                                     if st.console else "")
        snap = st.snapshot
        snap_html = ""
        if snap is not None:  # the tree is the tool result's content (or, if an agent stores it so, `tree`)
            info = snap.raw["snapshot"]
            tree = info.get("tree") or snap.content
            snap_html = (f"<details class=snap open><summary>accessibility snapshot the agent took "
                         f"{short(info.get('url') or '', 200)}</summary><pre>{short(tree, SNAPSHOT_CAP)}</pre>"
                         "</details>")
        seqs = [a.seq for a in st.actions if a.seq is not None]
        seq = f"seq {seqs[0]}–{seqs[-1]}" if len(seqs) > 1 else (f"seq {seqs[0]}" if seqs else "")
        body = (f"<div class=shots>{self._img(before, 'before')}{self._img(after, 'after')}</div>{snap_html}"
                f"<table class=recs>{self._agent(st)}{self._actions(st)}{self._requests(st)}{self._console(st)}"
                "</table>")
        keys = [self.media.key(self.tr.run.screenshot_file(s)) if s is not None else None for s in (before, after)]
        times = [a.t for a in st.actions if a.t is not None]
        span = f" data-a0='{min(times):.6f}' data-a1='{max(times):.6f}'" if times else ""  # first, last action (µs)
        return (f"<details class=step id='{self.side}-step-{st.n}' data-n='{st.n}' data-t0='{st.t0:.3f}'{span} "
                f"data-err='{1 if errors else 0}' data-before='{keys[0] or ''}' data-after='{keys[1] or ''}'>"
                f"<summary><span class=n>{st.n}</span><span class=t data-t='{st.t0:.3f}'>{fmt_t(st.t0)}</span>"
                f"<span class=what>{short(st.summary(), 160)}</span>{badges}<span class=muted>{esc(counts)} "
                f"{esc(seq)}</span></summary>{body}</details>")

    def render(self) -> str:
        return "".join(self.step(st) for st in self.tr.steps)
