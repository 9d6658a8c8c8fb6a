"""report.html: one self-contained page per run (`clawrec view`): manifest summary, verdict, diagnosis, the video,
and the five layers on the run's one clock (an overview strip and a merged timeline).

Everything the page under test could have written (target names, values, URLs, agent messages, payloads) is
untrusted: every text goes through `html.escape`, no page-derived string ever becomes a link or reaches the small
inline script (which only reads numeric `data-t` attributes to seek the video). Files are linked by paths relative
to the report, so the run directory can be moved or zipped as a whole.
"""

from __future__ import annotations

import html
import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from rundir import records as R
from evaluator.diagnose import DIAGNOSIS, check_layers
from rundir.reader import RunDir

STATIC_TYPES = {"image", "stylesheet", "font", "script", "media", "manifest", "other"}
TEXT_LIMIT = 2000
CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f5f6f8}
header{background:#1d2330;color:#fff;padding:14px 24px}header h1{margin:0;font-size:20px}
main{padding:16px 24px;max-width:1400px}section{background:#fff;border-radius:8px;padding:12px 16px;margin:0 0 16px;
box-shadow:0 1px 2px #0002}h2{font-size:16px;margin:0 0 8px}table{border-collapse:collapse;width:100%}
td,th{text-align:left;padding:3px 8px;border-bottom:1px solid #eceef2;vertical-align:top;overflow-wrap:anywhere}
code{word-break:break-all}table.tl{table-layout:fixed}
th{font-weight:600;color:#555}.kv td:first-child{color:#666;width:180px}
.PASS{color:#0a7d32;font-weight:700}.FAIL{color:#c62828;font-weight:700}
.badge{display:inline-block;border-radius:4px;padding:0 6px;font-size:12px;color:#fff}
.l-action{background:#3567c8}.l-screenshot{background:#7a4fc4}.l-http{background:#4b8a3c}.l-agent{background:#c27b12}
.l-caught{background:#c62828}tr.caught td{background:#fde7e7}tr.static{color:#999}
.strip{position:relative;height:18px;background:#f0f1f4;margin:2px 0 2px 90px;border-radius:3px}
.lane{position:relative}.lane span.name{position:absolute;left:0;top:1px;width:84px;font-size:12px;color:#555}
.tick{position:absolute;top:2px;width:3px;height:14px;border-radius:1px;opacity:.8}
img.thumb{width:160px;height:100px;object-fit:contain;background:#eee;border:1px solid #ccd;border-radius:3px}pre{margin:0;white-space:pre-wrap;word-break:break-word;
font:12px/1.4 ui-monospace,monospace}video{max-width:100%;max-height:360px;background:#000}
.t{font-variant-numeric:tabular-nums;color:#555;cursor:pointer}.same{color:#0a7d32}.value,.differs{color:#c62828}
.extra,.missing{color:#8b3fb5}.muted{color:#888}
"""
SCRIPT = """document.querySelectorAll('[data-t]').forEach(function(el){el.addEventListener('click',function(){
var v=document.querySelector('video');if(!v)return;var t=parseFloat(el.getAttribute('data-t'))-
parseFloat(v.getAttribute('data-start')||'0');if(isFinite(t)){v.currentTime=Math.max(0,t);v.play();}});});"""


def esc(value: Any) -> str:
    """Escaped text of any value (dicts and lists as JSON)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        value = json.dumps(value, ensure_ascii=False, default=str)
    return html.escape(value, quote=True)


def short(value: Any, limit: int = TEXT_LIMIT) -> str:
    s = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return esc(s if len(s) <= limit else s[:limit] + "…")


class Report:
    """Builds the HTML of one run; `links_from` is the folder the report is written to (relative links)."""

    def __init__(self, run: RunDir, links_from: Path) -> None:
        self.run = run
        self.base = links_from.resolve()
        cut = check_layers(run, "run")  # raises for a corrupt line inside a layer; a cut last line is a note
        self.notes = cut + [p for p in dict.fromkeys(run.problems) if "is corrupt (skipped)" not in p]

    def href(self, path: Path) -> str:
        return esc(quote(os.path.relpath(path.resolve(), self.base).replace(os.sep, "/")))

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

    # --- sections ----------------------------------------------------------------------------------------------
    def summary(self) -> str:
        m, run = self.run.manifest, self.run
        versions = m.get("versions") if isinstance(m.get("versions"), dict) else {}
        layers = m.get("layers") if isinstance(m.get("layers"), dict) else {}
        rows = [("run", run.run_id), ("task", run.task_id), ("agent", run.agent_name), ("status", run.status),
                ("stop reason", run.stop_reason), ("started", m.get("t0_iso")), ("duration (s)", m.get("duration")),
                ("versions", ", ".join(f"{k} {str(v)[:40]}" for k, v in versions.items())),
                ("layers", ", ".join(f"{k}: {v.get('count', v.get('frames', '?'))}" for k, v in layers.items()
                                     if isinstance(v, dict)))]
        body = "".join(f"<tr><td>{esc(k)}</td><td>{esc(v)}</td></tr>" for k, v in rows if v not in (None, ""))
        return f"<section><h2>Run</h2><table class=kv>{body}</table></section>"

    def verdict(self) -> str:
        v = self._json(R.VERDICT)
        if v is None:
            why = "verdict.json is unreadable (see Notes)" if (self.run.path / R.VERDICT).exists() else \
                "not judged (no verdict.json)"
            return f"<section><h2>Verdict</h2><p class=muted>{why}</p></section>"
        verdict = str(v.get("verdict"))
        cls = verdict if verdict in ("PASS", "FAIL") else ""
        rows = "".join(
            f"<tr><td class={'PASS' if c.get('met') else 'FAIL'}>{'✓' if c.get('met') else '✗'}</td>"
            f"<td>{esc(c.get('condition'))}</td><td>{short(c.get('detail') or '', 300)}</td></tr>"
            for c in v.get("conditions") or [] if isinstance(c, dict))
        div = v.get("divergence")
        div_html = (f"<p>divergence: step {esc(div.get('step'))}: agent {esc(div.get('agent'))} — reference "
                    f"{esc(div.get('reference'))}</p>" if isinstance(div, dict) else "")
        skipped = ", ".join(f"{s.get('field')} ({s.get('reason')})" for s in v.get("skipped_fields") or []
                            if isinstance(s, dict))
        return (f"<section><h2>Verdict: <span class={cls}>{esc(verdict)}</span> "
                f"<span class=muted>({esc(v.get('judge'))} judge)</span></h2><p>{short(v.get('justification'))}</p>"
                f"{div_html}<table>{rows}</table>"
                + (f"<p class=muted>skipped: {esc(skipped)}</p>" if skipped else "") + "</section>")

    def diagnosis(self) -> str:
        d = self._json(DIAGNOSIS)
        if d is None:
            return ""
        div = d.get("first_divergence")
        ref_dir = Path(str(d.get("reference") or ""))
        head = "<p class=same>no divergence from the reference</p>"
        if isinstance(div, dict):
            shots = ""
            for side, root in (("agent", self.run.path), ("reference", ref_dir)):
                rel = div.get(f"{side}_screenshot")
                p = (root / str(rel)).resolve() if rel else None
                if p is not None and p.is_relative_to(root.resolve()) and p.is_file():
                    shots += (f"<td>{side}<br><a href='{self.href(p)}'><img class=thumb src='{self.href(p)}' "
                              f"alt='{esc(side)} screenshot'></a></td>")
            head = (f"<p><b>first divergence</b>: {esc(div.get('summary'))}</p>"
                    f"<table><tr>{shots}</tr></table>")
        rows = "".join(
            f"<tr><td>{esc(r.get('row'))}</td><td class={esc(r.get('status'))}>{esc(r.get('status'))}</td>"
            f"<td>{esc((r.get('agent') or {}).get('text'))}</td><td>{esc((r.get('reference') or {}).get('text'))}"
            f"</td></tr>" for r in d.get("aligned") or [] if isinstance(r, dict))
        return (f"<section><h2>Diagnosis <span class=muted>(vs {esc(d.get('reference'))})</span></h2>{head}"
                f"<details><summary>aligned steps</summary><table><tr><th>#</th><th>status</th><th>agent</th>"
                f"<th>reference</th></tr>{rows}</table></details></section>")

    def video(self) -> str:
        p = self.run.path / R.VIDEO
        if not p.is_file():
            return "<section><h2>Video</h2><p class=muted>no video recorded</p></section>"
        start = self.run.manifest.get("video_start_t")
        start = start if isinstance(start, (int, float)) else 0
        return (f"<section><h2>Video</h2><video src='{self.href(p)}' controls preload=metadata "
                f"data-start='{float(start)}'></video><p class=muted>click a time in the timeline to seek</p>"
                "</section>")

    # --- timeline ----------------------------------------------------------------------------------------------
    def events(self) -> list[tuple[float, str, str, str]]:
        """(t, layer, row class, cells html) of every record of the five layers, in time order."""
        out: list[tuple[float, str, str, str]] = []
        for a in self.run.actions:
            t = a.target if isinstance(a.target, dict) else {}
            name = t.get("name") or t.get("text") or t.get("selector") or ""
            what = f"<b>{esc(a.type)}</b> {esc(t.get('tag'))} {short(name, 120)}"
            if a.value is not None:
                what += f" = <code>{short(a.value, 200)}</code>"
            if a.key:
                what += f" key <code>{esc(a.key)}</code>"
            if a.type == "navigate" or not t:
                what += f" <span class=muted>{short(a.url or '', 300)}</span>"
            out.append((a.t or 0.0, "action", "", what))
        for s in self.run.screenshots:
            p = self.run.screenshot_file(s)
            img = (f"<a href='{self.href(p)}'><img class=thumb loading=lazy src='{self.href(p)}' "
                   f"alt='screenshot {esc(s.seq)}'></a>") if p else "<span class=muted>(file not kept)</span>"
            out.append((s.t or 0.0, "screenshot", "", f"{img} <span class=muted>{short(s.url or '', 300)}</span>"))
        for h in self.run.http:
            if h.type == "websocket":
                if not h.url:
                    continue  # the recorder's own channel
                out.append((h.t or 0.0, "http", "", f"WS {esc(h.event)} {short(h.url, 300)} "
                                                    f"<code>{short(h.payload, 300)}</code>"))
                continue
            status = (h.response or {}).get("status") if isinstance(h.response, dict) else None
            cls = "caught" if h.intercepted else ("static" if str(h.resource_type).lower() in STATIC_TYPES else "")
            what = (f"<b>{esc(h.method)}</b> {short(h.url, 400)} <span class=muted>{esc(h.resource_type)} "
                    f"{esc(status if status is not None else h.raw.get('error', ''))}</span>")
            if h.intercepted:
                what += f" <span class='badge l-caught'>{esc(h.intercepted)}</span>"
            out.append((h.t or 0.0, "http", cls, what))
        for c in self.run.interceptions:
            out.append((c.t or 0.0, "caught", "caught",
                        f"<b>{esc(c.method)} {short(c.url, 400)}</b> rule {esc(c.rule)} → {esc(c.action)}"
                        f"<details><summary>payload</summary><pre>{short(c.body, 8000)}</pre></details>"))
        for m in self.run.agent:
            label = m.role + (f" {m.tool}" if m.tool else "")
            out.append((m.t or 0.0, "agent", "", f"<b>{esc(label)}</b><pre>{short(m.content)}</pre>"))
        return sorted(out, key=lambda e: e[0])

    def timeline(self, events: list[tuple[float, str, str, str]]) -> str:
        end = max([e[0] for e in events] + [float(self.run.manifest.get("duration") or 0), 0.001])
        lanes = ""
        for layer in ("action", "screenshot", "http", "agent", "caught"):
            ticks = "".join(f"<span class='tick l-{layer}' style='left:{min(99.5, 100 * t / end):.2f}%' "
                            f"title='{t:.2f}s'></span>" for t, lay, _c, _w in events if lay == layer)
            lanes += f"<div class=lane><span class=name>{layer}</span><div class=strip>{ticks}</div></div>"
        rows = "".join(f"<tr class='{cls}'><td class=t data-t='{t:.3f}'>{t:8.2f}</td>"
                       f"<td><span class='badge l-{lay}'>{lay}</span></td><td>{what}</td></tr>"
                       for t, lay, cls, what in events)
        return (f"<section><h2>Timeline <span class=muted>(seconds on the run clock, 0 – {end:.1f})</span></h2>"
                f"{lanes}<table class=tl><colgroup><col style='width:70px'><col style='width:100px'><col></colgroup>"
                f"<tr><th>t</th><th>layer</th><th></th></tr>{rows}</table></section>")

    def render(self) -> str:
        title = f"clawrec run {self.run.run_id}"
        events = self.events()
        # The sections first: reading verdict.json and diagnosis.json adds their notes (unreadable, wrong type).
        sections = f"{self.summary()}{self.verdict()}{self.diagnosis()}{self.video()}{self.timeline(events)}"
        notes = "".join(f"<li>{esc(n)}</li>" for n in self.notes)
        return ("<!doctype html><html lang=en><head><meta charset=utf-8>"
                "<meta http-equiv=Content-Security-Policy content=\"default-src 'self'; img-src 'self' data:; "
                "media-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">"
                f"<title>{esc(title)}</title><style>{CSS}</style></head><body>"
                f"<header><h1>{esc(title)}</h1><div>{esc(self.run.task_id)} · {esc(self.run.status)}</div></header>"
                f"<main>{sections}"
                + (f"<section><h2>Notes</h2><ul>{notes}</ul></section>" if notes else "")
                + f"</main><script>{SCRIPT}</script></body></html>")


def write_report(run: str | Path | RunDir, out: str | Path | None = None) -> Path:
    """Render RUN into `out` (default RUN/report.html); returns the path written."""
    rd = run if isinstance(run, RunDir) else RunDir(run)
    target = Path(out) if out is not None else rd.path / R.REPORT
    target.parent.mkdir(parents=True, exist_ok=True)
    page = Report(rd, target.parent).render()
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(page, encoding="utf-8")
    os.replace(tmp, target)
    return target
