"""The LLM judge's tools: bounded, line-numbered reads of the agent and reference run directories.

Why bounded: the judge must stay under a token budget, so every answer is capped (records per call, characters per
answer, screenshots per judgement). Why fenced: actions, HTTP and payloads carry text the web page chose, so every
answer is wrapped in <untrusted_run_data> and the model is told that nothing inside is an instruction.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from rundir import records as R
from rundir.reader import RunDir
from taskspec import terminal

FENCE = "untrusted_run_data"
RUN_ARG = {"type": "string", "enum": ["agent", "reference"], "description": "which run to read"}

TOOL_SPECS: list[dict[str, Any]] = [
    {"name": "get_payloads", "description": "The caught terminal request(s) of a run (interceptions.jsonl): rule, "
     "method, URL and decoded body, each with its line number.",
     "input_schema": {"type": "object", "properties": {"run": RUN_ARG}, "required": ["run"]}},
    {"name": "list_actions", "description": "Browser actions (actions.jsonl) with seq between start_seq and "
     "end_seq inclusive (at most 40 per call): type, target, value, URL, line number.",
     "input_schema": {"type": "object", "properties": {
         "run": RUN_ARG, "start_seq": {"type": "integer"}, "end_seq": {"type": "integer"}}, "required": ["run"]}},
    {"name": "search_http", "description": "HTTP requests (http.jsonl) whose URL contains `query` "
     "(case-insensitive; empty = all), optionally only one method; at most `limit` (<= 20) results.",
     "input_schema": {"type": "object", "properties": {
         "run": RUN_ARG, "query": {"type": "string"}, "method": {"type": "string"},
         "limit": {"type": "integer"}}, "required": ["run"]}},
    {"name": "get_screenshot", "description": "One screenshot as an image: by its seq, or the one taken after "
     "the action with action_seq. Screenshots are costly: ask only for the ones that matter.",
     "input_schema": {"type": "object", "properties": {
         "run": RUN_ARG, "seq": {"type": "integer"}, "action_seq": {"type": "integer"}}, "required": ["run"]}},
    {"name": "get_agent_messages", "description": "Messages of the agent (agent.jsonl) from start_line to end_line "
     "(at most 30 lines per call): role, tool, content (truncated).",
     "input_schema": {"type": "object", "properties": {
         "run": RUN_ARG, "start_line": {"type": "integer"}, "end_line": {"type": "integer"}},
         "required": ["run"]}},
]


def fence(run: str, source: str, text: str) -> str:
    """Wrap run-derived text so the model can tell data from instructions; a forged closing tag is defused."""
    safe = text.replace(f"</{FENCE}", f"<\\/{FENCE}").replace(f"<{FENCE}", f"<\\{FENCE}")
    return f'<{FENCE} run="{run}" source="{source}">\n{safe}\n</{FENCE}>'


def _compact(value: Any, limit: int) -> str:
    s = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return s if len(s) <= limit else s[: limit - 20] + f"…(+{len(s) - limit + 20} chars)"


class ToolError(Exception):
    """A tool call the model got wrong: answered as a tool_result with is_error, never fatal."""


class RunTools:
    """Answers tool calls from the two run directories; keeps count of screenshots sent."""

    def __init__(self, agent: RunDir, reference: RunDir | None, *, max_chars: int = 5000,
                 max_screenshots: int = 4) -> None:
        self.runs = {"agent": agent, "reference": reference}
        self.max_chars = max_chars
        self.max_screenshots = max_screenshots
        self.screenshots_sent = 0
        self.calls: list[dict[str, Any]] = []

    def _run(self, args: dict[str, Any]) -> tuple[str, RunDir]:
        name = args.get("run", "agent")
        run = self.runs.get(name)
        if run is None:
            raise ToolError(f"there is no {name!r} run" + (" (no reference run was given)"
                                                            if name == "reference" else ""))
        return name, run

    def call(self, name: str, args: dict[str, Any]) -> tuple[list[dict[str, Any]], bool]:
        """(tool_result content blocks, is_error) for one tool call."""
        self.calls.append({"tool": name, "input": args})
        fn = getattr(self, "tool_" + name, None)
        if fn is None or not isinstance(args, dict):
            return [{"type": "text", "text": f"unknown tool {name!r}" if fn is None else "input must be an object"}
                    ], True
        try:
            return fn(args), False
        except ToolError as exc:
            return [{"type": "text", "text": str(exc)}], True
        except (TypeError, ValueError) as exc:
            return [{"type": "text", "text": f"bad input for {name}: {exc}"}], True

    def _text(self, run: str, source: str, lines: list[str], header: str = "") -> list[dict[str, Any]]:
        body, used, cut = [], 0, 0
        for ln in lines:
            if used + len(ln) > self.max_chars:
                cut += 1
                continue
            body.append(ln)
            used += len(ln) + 1
        tail = f"\n({cut} more records not shown: narrow the range)" if cut else ""
        return [{"type": "text", "text": (header + "\n" if header else "") + fence(run, source, "\n".join(body))
                 + tail}]

    def tool_get_payloads(self, args: dict[str, Any]) -> list[dict[str, Any]]:
        name, run = self._run(args)
        layer = run.interceptions
        if not layer.records:
            return [{"type": "text", "text": f"{name} run: no caught terminal request"
                     + (f" (corrupt lines: {layer.bad_lines})" if layer.bad_lines else "")}]
        final = terminal.terminal_order(layer.records)[0]  # the one the payload judge and check-spec judge
        lines = [f"line {c.line}: t={c.t} rule={c.rule} {c.method} {c.url} action={c.action}"
                 + (f" (held: blocked by {(c.held or {}).get('by')})" if c.held else "")
                 + (" [the run's terminal request]" if c is final and len(layer.records) > 1 else "") + " body="
                 + _compact(c.body, 3000) + (" query=" + _compact(c.query, 500) if c.query else "")
                 for c in layer.records]
        return self._text(name, R.INTERCEPTIONS, lines)

    def tool_list_actions(self, args: dict[str, Any]) -> list[dict[str, Any]]:
        name, run = self._run(args)
        lo = int(args.get("start_seq") or 0)
        hi = int(args.get("end_seq") if args.get("end_seq") is not None else lo + 39)
        hi = min(hi, lo + 39)
        picked = [a for a in run.actions if a.seq is not None and lo <= a.seq <= hi]
        lines = []
        for a in picked:
            tgt = a.target or {}
            desc = " ".join(f"{k}={_compact(tgt[k], 80)}" for k in ("tag", "id", "role", "name", "text", "selector")
                            if tgt.get(k))
            extra = "".join(f" {k}={_compact(v, 200)}" for k, v in (("key", a.key), ("value", a.value)) if v)
            lines.append(f"line {a.line} seq {a.seq} t={a.t} {a.type} [{desc}]{extra} url={a.url}")
        total = len(run.actions)
        return self._text(name, R.ACTIONS, lines, f"{name} run: actions seq {lo}..{hi} ({len(picked)} of {total})")

    def tool_search_http(self, args: dict[str, Any]) -> list[dict[str, Any]]:
        name, run = self._run(args)
        q = str(args.get("query") or "").lower()
        method = str(args.get("method") or "").upper()
        limit = max(1, min(int(args.get("limit") or 20), 20))
        hits = [h for h in run.http if q in h.url.lower() and (not method or h.method.upper() == method)]
        lines = []
        for h in hits[:limit]:
            status = (h.response or {}).get("status") if isinstance(h.response, dict) else None
            body = f" body={_compact(h.body, 300)}" if h.body else ""
            if h.type == "websocket":
                lines.append(f"line {h.line} t={h.t} websocket {h.event} {h.url}: {_compact(h.payload, 300)}")
                continue
            lines.append(f"line {h.line} t={h.t} {h.method} {h.url} -> {status if status is not None else '-'}"
                         f"{' INTERCEPTED' if h.intercepted else ''}{body}")
        return self._text(name, R.HTTP, lines, f"{name} run: {len(hits)} matching requests"
                          + (f", first {limit} shown" if len(hits) > limit else ""))

    def tool_get_screenshot(self, args: dict[str, Any]) -> list[dict[str, Any]]:
        name, run = self._run(args)
        shots = list(run.screenshots)
        if args.get("seq") is not None:
            shot = next((s for s in shots if s.seq == int(args["seq"])), None)
        elif args.get("action_seq") is not None:
            want = int(args["action_seq"])
            before = [s for s in shots if s.action_seq is not None and s.action_seq <= want]
            shot = before[-1] if before else None
        else:
            raise ToolError("give seq or action_seq")
        if shot is None:
            have = ", ".join(str(s.seq) for s in shots[:50])
            raise ToolError(f"no such screenshot in the {name} run (screenshot seqs: {have or 'none'})")
        path = run.screenshot_file(shot)
        if path is None:
            raise ToolError(f"screenshot seq {shot.seq} is indexed but its file is missing")
        if self.screenshots_sent >= self.max_screenshots:
            raise ToolError(f"screenshot budget used ({self.max_screenshots} per judgement): decide from the "
                            "records you have")
        self.screenshots_sent += 1
        media = "image/png" if path.suffix == ".png" else "image/jpeg"
        caption = (f"{name} run: {path.relative_to(run.path)} (screenshots.jsonl line {shot.line}, seq {shot.seq}, "
                   f"after action seq {shot.action_seq}, t={shot.t})")
        return [{"type": "text", "text": fence(name, R.SCREENSHOTS_INDEX, caption + f" url={shot.url}")},
                {"type": "image", "source": {"type": "base64", "media_type": media,
                                             "data": base64.b64encode(path.read_bytes()).decode()}}]

    def tool_get_agent_messages(self, args: dict[str, Any]) -> list[dict[str, Any]]:
        name, run = self._run(args)
        lo = int(args.get("start_line") or 1)
        hi = min(int(args.get("end_line") or lo + 29), lo + 29)
        lines = [f"line {m.line} t={m.t} {m.role}{' ' + m.tool if m.tool else ''}: {_compact(m.content, 400)}"
                 for m in run.agent if lo <= m.line <= hi]
        return self._text(name, R.AGENT, lines, f"{name} run: agent messages, lines {lo}..{hi} "
                          f"(of {run.agent.n_lines})")


def overview(name: str, run: RunDir) -> str:
    """A few lines about a run for the first prompt: status, counts, where it went, corrupt lines."""
    urls = [a.url for a in run.actions if a.type == "navigate" and a.url]
    parts = [f"{name} run ({run.run_id}): status={run.status or 'unknown'} stop_reason={run.stop_reason or '-'} "
             f"agent={run.agent_name or '-'}",
             f"  layers: {len(run.actions)} actions (seq {run.actions.records[0].seq}..{run.actions.records[-1].seq})"
             if run.actions.records else "  layers: no actions",
             f"  {len(run.http)} HTTP requests, {len(run.interceptions)} caught terminal request(s), "
             f"{len(run.screenshots)} screenshots, {run.agent.n_lines} agent.jsonl lines",
             f"  pages navigated: {', '.join(urls[:5])}" if urls else "",
             f"  problems: {'; '.join(run.problems)}" if run.problems else ""]
    return fence(name, R.MANIFEST, "\n".join(p for p in parts if p))
