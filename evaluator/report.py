"""report.html (`clawrec view`): a run as steps, with a fixed media panel, the way a person debugs an agent.

Left: the diagnosis (failure category and cause) on top, the verdict with evidence links, filters and search, then
one collapsible row per step (evaluator/report_steps.py) and, with a reference, both runs side by side
(evaluator/report_side.py). Right, always visible: the video, the lanes of the five layers and a film strip
(clicking either seeks), the current step's before/after screenshots, and the request panel. Playing the video
highlights and scrolls to the current step; clicking a step seeks the video to it.

Self-contained (evaluator/report_media.py): media inlined, or copied beside the page; no network access (a strict
Content-Security-Policy). Untrusted text is escaped (evaluator/report_html.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from evaluator.diagnose import DIAGNOSIS, Diagnosis, check_layers
from evaluator.report_html import asset, esc, fmt_t, script_json, short
from evaluator.report_dom import DOM_PANEL, DomPanel
from evaluator.report_media import Media
from evaluator.report_side import aligned, banner
from evaluator import report_writes
from evaluator.report_steps import StepList, anchor
from evaluator.trajectory import Trajectory, is_static
from rundir import records as R
from rundir.reader import RunDir

CSP = ("default-src 'none'; img-src data: 'self'; media-src data: blob: 'self'; style-src 'unsafe-inline'; "
       "script-src 'unsafe-inline'")
LANES = ("action", "screenshot", "http", "console", "agent", "caught")


class Report:
    """Builds the page of one run; `diagnosis` comes from a live Diagnosis (view --reference) or diagnosis.json."""

    def __init__(self, run: RunDir, out: Path, embed: bool | None = None, diagnosis: Diagnosis | None = None,
                 reference: RunDir | None = None) -> None:
        self.run = run
        self.media = Media(out, embed)
        cut = check_layers(run, "run")  # raises for a corrupt line inside a layer; a cut last line is a note
        self.notes = cut + [p for p in dict.fromkeys(run.problems) if "is corrupt (skipped)" not in p]
        self.tr = Trajectory(run)
        self.notes += self.tr.console_notes
        self.notes += replay_misses(run.path)
        self.diag = diagnosis.to_dict() if diagnosis is not None else self._json(DIAGNOSIS)
        self.ref_tr = Trajectory(reference) if reference is not None else None  # side by side only when asked

    def _json(self, name: str) -> dict[str, Any] | None:
        p = self.run.path / name
        if not p.is_file():
            return None
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            self.notes.append(f"{name}: unreadable ({exc})")
            return None
        if not isinstance(data, dict):
            self.notes.append(f"{name}: unreadable (not a JSON object)")
            return None
        return data

    # --- left column --------------------------------------------------------------------------------------------
    def summary(self) -> str:
        m, run = self.run.manifest, self.run
        versions = m.get("versions") if isinstance(m.get("versions"), dict) else {}
        layers = m.get("layers") if isinstance(m.get("layers"), dict) else {}
        rows = [("run", run.run_id), ("task", run.task_id), ("agent", run.agent_name), ("status", run.status),
                ("stop reason", run.stop_reason), ("started", m.get("t0_iso")), ("duration (s)", m.get("duration")),
                ("steps", f"{len(self.tr.steps)} (" + ("one per agent tool call" if self.tr.mode == "agent"
                                                      else "action bursts") + ")"),
                ("versions", ", ".join(f"{k} {str(v).splitlines()[0][:40] if v else ''}" for k, v in versions.items())),
                ("site", site_line(m.get("site"))),
                ("layers", ", ".join(f"{k}: {v.get('count', v.get('frames', '?'))}" for k, v in layers.items()
                                     if isinstance(v, dict)))]
        body = "".join(f"<tr><td>{esc(k)}</td><td>{esc(v)}</td></tr>" for k, v in rows if v not in (None, ""))
        return f"<section id=run><h2>Run</h2><table class=kv>{body}</table></section>"

    def _evidence(self, e: Any) -> str:
        if not isinstance(e, dict):
            return ""
        where = f"{e.get('file')}" + (f" line {e.get('line')}" if e.get("line") is not None else "") + \
            (f" seq {e.get('seq')}" if e.get("seq") is not None else "") + (f" [{e.get('field')}]" if e.get("field")
                                                                          else "")
        target = None
        if e.get("run") == "agent" and isinstance(e.get("line"), int) and e.get("file"):
            target = anchor(str(e["file"]), e["line"])
        elif e.get("run") == "agent" and isinstance(e.get("seq"), int):
            st = self.tr.step_of_seq(e["seq"])
            target = f"agent-step-{st.n}" if st else None
        label = f"{esc(e.get('run'))}: {esc(where)}"
        return f"<a class='ev go' href='#{target}'>{label}</a>" if target else f"<span class=muted>{label}</span>"

    def verdict(self) -> str:
        v = self._json(R.VERDICT)
        if v is None:
            why = "verdict.json is unreadable (see Notes)" if (self.run.path / R.VERDICT).exists() else \
                "not judged (no verdict.json)"
            return f"<section id=verdict><h2>Verdict</h2><p class=muted>{why}</p></section>"
        verdict = str(v.get("verdict"))
        cls = verdict if verdict in ("PASS", "FAIL") else ""
        conds = [c for c in v.get("conditions") or [] if isinstance(c, dict)]

        def row(c: dict[str, Any]) -> str:
            ev = c.get("evidence") if isinstance(c.get("evidence"), list) else []
            return (f"<tr class='{'met' if c.get('met') else 'unmet'}'><td class={'PASS' if c.get('met') else 'FAIL'}>"
                    f"{'✓' if c.get('met') else '✗'}</td><td>{esc(c.get('condition'))}</td>"
                    f"<td>{short(c.get('detail') or '', 300)}</td><td>{' '.join(self._evidence(e) for e in ev)}</td>"
                    "</tr>")
        failed_rows = "".join(row(c) for c in conds if not c.get("met"))
        met_rows = "".join(row(c) for c in conds if c.get("met"))
        div = v.get("divergence")
        div_html = ""
        if isinstance(div, dict):
            seq = div.get("step")  # the judges point at an action by its seq
            st = self.tr.step_of_seq(seq) if isinstance(seq, int) else None
            where = (f"<a class=go href='#agent-step-{st.n}'>step {st.n}</a> (seq {seq}): " if st else
                     f"seq {esc(seq)}: " if seq is not None else "")
            div_html = (f"<p>judge's divergence: {where}agent {esc(div.get('agent'))} — reference "
                        f"{esc(div.get('reference'))}</p>")
        skipped = ", ".join(f"{s.get('field')} ({s.get('reason')})" for s in v.get("skipped_fields") or []
                            if isinstance(s, dict))
        return (f"<section id=verdict><h2>Verdict: <span class={cls}>{esc(verdict)}</span> "
                f"<span class=muted>({esc(v.get('judge'))} judge)</span></h2><p>{short(v.get('justification'))}</p>"
                f"{div_html}<table class=conds>{failed_rows}</table>{report_writes.never_sent(v)}<details><summary>"
                f"{sum(1 for c in conds if c.get('met'))} conditions met</summary><table class=conds>{met_rows}</table></details>"
                + (f"<p class=muted>skipped: {esc(skipped)}</p>" if skipped else "") + "</section>")

    def toolbar(self) -> str:
        boxes = "".join(f"<label><input type=checkbox data-layer='{k}'{' checked' if on else ''}> {label}</label>"
                        for k, label, on in (("agent", "agent", True), ("action", "actions", True),
                                             ("http", "requests", True), ("static", "static requests", False),
                                             ("console", "console", True)))
        return (f"<div class=toolbar><input type=search id=search placeholder='search steps (text, URL, value)'>"
                f"{boxes}<label><input type=checkbox id=errors-only> errors only</label>"
                "<button id=expand type=button>expand all</button><button id=collapse type=button>collapse all"
                "</button><span id=shown class=muted></span></div>")

    # --- right column -------------------------------------------------------------------------------------------
    def video(self) -> str:
        key = self.media.key(self.run.path / R.VIDEO, "v")
        if key is None:
            return "<div class=novideo>no video recorded</div>"
        start = self.run.manifest.get("video_start_t")
        start = float(start) if isinstance(start, (int, float)) else 0.0
        return f"<video data-m='{key}' controls preload=auto data-start='{start}'></video>"

    def lanes(self, end: float) -> str:
        ticks: dict[str, list[tuple[float, str]]] = {k: [] for k in LANES}
        for st in self.tr.steps:
            ticks["action"] += [(a.t, f"step {st.n}: {a.type}") for a in st.actions if a.t is not None]
            ticks["http"] += [(h.t, f"step {st.n}: {h.method} {h.url[:80]}") for h in st.requests
                              if h.t is not None and not is_static(h)]
            ticks["console"] += [(c.t, f"step {st.n}: {c.level}") for c in st.console if c.t is not None]
            ticks["agent"] += [(m.t, f"step {st.n}: {m.role}") for m in st.messages if m.t is not None]
            ticks["caught"] += [(c.t, f"step {st.n}: caught") for c in st.catches if c.t is not None]
            ticks["screenshot"] += [(s.t, f"step {st.n}: screenshot") for s in st.screenshots if s.t is not None]
        html = ""
        for lane in LANES:
            spans = "".join(f"<span class='tick l-{lane}' style='left:{min(99.5, 100 * t / end):.2f}%' "
                            f"data-t='{t:.3f}' title='{esc(fmt_t(t))} {esc(title)}'></span>"
                            for t, title in ticks[lane][:2000])
            html += f"<div class=lane><span class=name>{lane}</span><div class=strip>{spans}</div></div>"
        return f"<div class=lanes>{html}<div class=cursor></div></div>"

    def film(self) -> str:
        frames = []
        for st in self.tr.steps:
            for s in st.screenshots:
                key = self.media.key(self.run.screenshot_file(s))
                if key:
                    frames.append(f"<img class=frame data-m='{key}' data-t='{s.t or 0:.3f}' data-step='{st.n}' "
                                  f"alt='step {st.n} at {esc(fmt_t(s.t))}' title='step {st.n} · {esc(fmt_t(s.t))}'>")
        return f"<div class=film>{''.join(frames) or '<span class=muted>no screenshots kept</span>'}</div>"

    def aside(self, end: float) -> str:
        return (f"<aside id=media>{self.video()}{self.lanes(end)}{self.film()}"
                "<div id=current><h3 id=cur-title>click a step</h3><div class=shots>"
                "<figure class=shot><img id=cur-before alt='before'><figcaption>before</figcaption></figure>"
                "<figure class=shot><img id=cur-after alt='after'><figcaption>after</figcaption></figure></div></div>"
                f"{DOM_PANEL}<div id=reqpanel><h3>request</h3><p class=muted>click a request in a step</p></div>"
                "</aside>")

    def render(self) -> str:
        title = f"clawrec run {self.run.run_id}"
        steps = StepList(self.tr, self.media)
        steps.writes = report_writes.by_line(self._json(R.VERDICT))  # a spec's writes, in their steps
        step_html = steps.render()
        end = max([float(self.run.manifest.get("duration") or 0), 0.001] + [s.t0 for s in self.tr.steps]
                  + [h.t for h in self.run.http if h.t is not None])
        left = (banner(self.diag) + self.verdict() + self.toolbar()
                + f"<section id=steps><h2>Steps <span class=muted>({len(self.tr.steps)}; seconds on the run clock)"
                  f"</span></h2>{step_html}</section>"
                + (aligned(self.diag, self.tr, self.ref_tr, self.media) if self.ref_tr is not None else "")
                + self.summary())
        aside = self.aside(end)  # registers the video and film strip media
        self.media.check_folder()
        data = {"steps": [{"n": s.n, "t0": s.t0} for s in self.tr.steps], "requests": steps.requests,
                "media": self.media.sources(), "end": end, "dom": DomPanel(self.tr).data()}
        notes = "".join(f"<li>{esc(n)}</li>" for n in self.notes)
        status = f"{self.run.task_id or ''} · {self.run.agent_name or ''} · {self.run.status or ''}"
        return ("<!doctype html><html lang=en><head><meta charset=utf-8>"
                f"<meta http-equiv=Content-Security-Policy content=\"{CSP}\">"
                f"<title>{esc(title)}</title><style>{asset('report.css')}</style></head><body>"
                f"<header><h1>{esc(title)}</h1><div>{esc(status)}</div></header><div class=layout><main>{left}"
                + (f"<section id=notes><h2>Notes</h2><ul>{notes}</ul></section>" if notes else "")
                + f"</main>{aside}</div><script type=application/json id=report-data>{script_json(data)}</script>"
                f"<script>{asset('report.js')}\n{asset('report_dom.js')}</script></body></html>")


def site_line(site: Any) -> str:
    """The manifest's `site` block in one line: live, or the archive replayed with its hit rate and misses."""
    if not isinstance(site, dict):
        return ""
    if site.get("mode") == "archive":
        return (f"archive {site.get('source')}: {site.get('requests')} requests, hit rate {site.get('hit_rate')}, "
                f"{site.get('misses')} misses, {site.get('live_requests')} live")
    arch = site.get("archive")
    return "live" + (f" (archived: {arch.get('exchanges')} exchanges)" if isinstance(arch, dict) else "")


def replay_misses(path: Path, limit: int = 20) -> list[str]:
    """A replay's misses (replay.jsonl tier `miss`) as report notes: what the archive could not answer."""
    from rundir.records import REPLAY, read_jsonl

    if not (path / REPLAY).is_file():
        return []
    lines, _bad = read_jsonl(path / REPLAY)
    misses = [x for x in lines if isinstance(x, dict) and x.get("tier") == "miss"]
    notes = [f"replay miss: {x.get('method')} {x.get('url')} (t={x.get('t')})" for x in misses[:limit]]
    if len(misses) > limit:
        notes.append(f"replay: {len(misses) - limit} more misses in {REPLAY}")
    return notes


def write_report(run: str | Path | RunDir, out: str | Path | None = None, embed: bool | None = None,
                 diagnosis: Diagnosis | None = None, reference: RunDir | None = None) -> Path:
    """Render RUN into `out` (default RUN/report.html), media inlined or in a folder beside it; returns the path."""
    rd = run if isinstance(run, RunDir) else RunDir(run)
    target = Path(out) if out is not None else rd.path / R.REPORT
    target.parent.mkdir(parents=True, exist_ok=True)
    report = Report(rd, target, embed, diagnosis, reference)
    page = report.render()
    report.media.write_folder()
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(page, encoding="utf-8")
    os.replace(tmp, target)
    return target
