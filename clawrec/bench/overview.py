"""overview.html: the page a person reads about a bench. The summary's tables rendered as tables (bold only for a
unique best), a per-category success bar chart with standard-error bars (one bar per agent/model), success vs
total cost and vs median duration scatter plots (one point per agent/model, HAL-leaderboard style), and a sortable,
filterable table of every run linking its report.html (rendered on demand).

Why one self-contained file: a bench folder is copied and mailed around; the page needs no network (inline SVG from
plots.py, inline CSS and a few lines of script for sorting and filtering). Text from runs is escaped.
summary.{md,csv,json} are written elsewhere and unchanged by this page.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any, Callable

from clawrec.bench.plots import bar_chart, legend, scatter

STYLE = """body{font:14px system-ui,sans-serif;margin:2em;color:#222;max-width:1400px}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}
th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}.pass{color:#176f2c}
.fail{color:#a11}.infra,.judge_inconclusive,.stopped,.bad_input{color:#a60}.muted{color:#777}
.plots{display:flex;flex-wrap:wrap;gap:2em;align-items:flex-start}.plots figure{margin:0}
figcaption{font-weight:600;margin-bottom:.3em}.legend span{margin-right:1.2em;white-space:nowrap}
.legend i{display:inline-block;width:.9em;height:.9em;margin-right:.3em;vertical-align:-1px}
#runs th{cursor:pointer;user-select:none}#runs th.asc:after{content:" ▲"}#runs th.desc:after{content:" ▼"}
#filter{padding:4px 8px;width:24em}pre{background:#f7f7f7;padding:1em;overflow:auto}"""

SCRIPT = """(()=>{const t=document.getElementById('runs'),b=t.tBodies[0],f=document.getElementById('filter'),
c=document.getElementById('shown');const rows=[...b.rows];
function show(){const w=f.value.toLowerCase().split(/\\s+/).filter(Boolean);let n=0;
for(const r of rows){const s=r.textContent.toLowerCase(),ok=w.every(x=>s.includes(x));r.hidden=!ok;n+=ok}
c.textContent=n+' of '+rows.length+' runs'}
f.addEventListener('input',show);
t.tHead.querySelectorAll('th').forEach((th,i)=>th.addEventListener('click',()=>{
const asc=!th.classList.contains('asc');t.tHead.querySelectorAll('th').forEach(h=>h.classList.remove('asc','desc'));
th.classList.add(asc?'asc':'desc');const key=r=>{const d=r.cells[i].dataset.v,v=d!==undefined?d:r.cells[i].textContent;
const x=parseFloat(v);return v!==''&&!isNaN(x)&&isFinite(v)?x:v.toLowerCase()};
rows.sort((p,q)=>{const a=key(p),z=key(q);const o=typeof a===typeof z?(a<z?-1:a>z?1:0):(typeof a==='number'?-1:1);
return asc?o:-o});rows.forEach(r=>b.appendChild(r))}));show()})();"""

def _e(text: Any) -> str:
    return html.escape("" if text is None else str(text))


def _report(run_dir: Path) -> str | None:
    """The run's report.html, rendered if missing; None when the run cannot be rendered."""
    if (run_dir / "report.html").exists():
        return "report.html"
    try:
        from evaluator.report import write_report

        write_report(run_dir)
    except Exception:  # a run that cannot be rendered still gets its row (no link)
        return None
    return "report.html"


def _cell(cell: dict[str, Any], best: bool) -> str:
    if cell["rate"] is None:
        return "<td class='num muted'>–</td>"
    text = f"{100 * cell['rate']:.1f} ± {100 * cell['se']:.1f} <span class=muted>(n={cell['n']})</span>"
    return f"<td class=num>{'<b>' + text + '</b>' if best else text}</td>"


def _stage_table(summary: dict[str, Any], stage: str, title: str) -> str:
    cols = summary["columns"]
    head = "".join(f"<th>{_e(c.capitalize() if c == 'overall' else c)}</th>" for c in cols)
    body = "".join(f"<tr><th>{_e(r['label'])}</th>"
                   + "".join(_cell(r["columns"][c][stage], r["label"] in summary["best"][stage][c]) for c in cols)
                   + "</tr>" for r in summary["rows"])
    return f"<h3>{_e(title)}</h3><table class=stage data-stage={stage}><tr><th>agent</th>{head}</tr>{body}</table>"


def _pk(r: dict[str, Any], key: str) -> str:
    pk = r["pass_k"] or {}
    if pk.get(key) is None:
        return "–"
    return f"{100 * pk[key]:.1f}%" + (f" (k={pk['k']})" if key == "pass_at_k" else "")


# The per-agent table: (header, cell text, shown for this summary?). A new summary column is one line here.
AGENT_COLUMNS: list[tuple[str, Callable[[dict[str, Any]], Any], Callable[[dict[str, Any]], bool]]] = [
    ("runs", lambda r: r["runs"], lambda s: True),
    ("PASS", lambda r: r["counts"]["pass"], lambda s: True),
    ("FAIL", lambda r: r["counts"]["fail"], lambda s: True),
    ("pass@k", lambda r: _pk(r, "pass_at_k"), lambda s: True),
    ("pass^k", lambda r: _pk(r, "pass_hat_k"), lambda s: True),
    ("consistency", lambda r: "–" if (r.get("consistency") or {}).get("mean_pairwise") is None
     else f"{r['consistency']['mean_pairwise']:.2f}", lambda s: s["trials"] > 1),
    ("infra failures", lambda r: r["counts"]["infra"] + r["counts"]["bad_input"], lambda s: True),
    ("stopped", lambda r: r["counts"].get("stopped", 0), lambda s: True),
    ("judge_inconclusive", lambda r: r["counts"]["judge_inconclusive"], lambda s: True),
    ("median duration", lambda r: "–" if r["median_duration_s"] is None else f"{r['median_duration_s']:.1f} s",
     lambda s: True),
    ("total cost", lambda r: "–" if r["cost_usd"] is None else f"${r['cost_usd']:.4f}", lambda s: True),
]


def _agents_table(summary: dict[str, Any]) -> str:
    cols = [(title, cell) for title, cell, shown in AGENT_COLUMNS if shown(summary)]
    head = "<tr><th>agent</th>" + "".join(f"<th>{_e(t)}</th>" for t, _ in cols) + "</tr>"
    rows = "".join(f"<tr><th>{_e(r['label'])}</th>" + "".join(f"<td class=num>{_e(cell(r))}</td>" for _, cell in cols)
                   + "</tr>" for r in summary["rows"])
    return f"<h3>Runs per agent</h3><table class=agents>{head}{rows}</table>"


def _failures_table(summary: dict[str, Any]) -> str:
    cats = summary["failure_categories"]
    head = "".join(f"<th>{_e(v)}</th>" for v in cats.values())
    rows = "".join(f"<tr><th>{_e(r['label'])}</th>"
                   + "".join(f"<td class=num>{r['failures']['categories'][c]}</td>" for c in cats)
                   + f"<td class=num>{r['failures']['unclassified']}</td>"
                   f"<td class=num>{r['failures']['self_report_gaps']}</td></tr>" for r in summary["rows"])
    return ("<h3>Failure categories <span class=muted>(runs judged FAIL, by the category in each run's "
            f"diagnosis.json)</span></h3><table><tr><th>agent</th>{head}<th>unclassified</th>"
            f"<th>self-report gaps</th></tr>{rows}</table>")


def _success_stage(summary: dict[str, Any]) -> tuple[str, str]:
    """Stage 2 (judged PASS) when anything was judged, else Stage 1 (intercepted)."""
    if any(r["columns"]["overall"]["stage2"]["n"] for r in summary["rows"]):
        return "stage2", "judged PASS"
    return "stage1", "terminal request intercepted"


def _plots(summary: dict[str, Any]) -> str:
    stage, what = _success_stage(summary)
    labels = [r["label"] for r in summary["rows"]]
    points = []
    for i, r in enumerate(summary["rows"]):
        cell = r["columns"]["overall"][stage]
        points.append({"label": r["label"], "index": i, "y": cell["rate"], "se": cell["se"], "n": cell["n"],
                       "cost": r["cost_usd"], "duration": r["median_duration_s"]})
    cost = scatter([{**p, "x": p["cost"]} for p in points], "total cost (USD)", f"success ({what})",
                   lambda v: f"${v:g}", "success vs total cost")
    duration = scatter([{**p, "x": p["duration"]} for p in points], "median duration (s)", f"success ({what})",
                       lambda v: f"{v:g} s", "success vs median duration")
    return (f"<h2>Plots</h2>{legend(labels)}<div class=plots>"
            f"<figure><figcaption>Success per category ({_e(what)}, % ± SE)</figcaption>"
            f"{bar_chart(summary, stage, 'success per category')}</figure>"
            f"<figure><figcaption>Success vs total cost</figcaption>{cost}</figure>"
            f"<figure><figcaption>Success vs median duration</figcaption>{duration}</figure></div>"
            "<p class=muted>Hollow points: the agent reported no cost (drawn at 0). Bars and points carry their "
            "numbers on hover.</p>")


def _num(v: Any) -> float | None:
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _why(r: dict[str, Any]) -> str:
    return _e(r.get("failure_category") or "") + (" · self-report gap" if r.get("self_report_gap") else "")


# The runs table: (header, cell HTML, sort value or None to sort by the text). A new results.jsonl field shown here is
# one entry; the link column is added by _runs_table.
RUN_COLUMNS: list[tuple[str, Callable[[dict[str, Any]], str], Callable[[dict[str, Any]], Any] | None]] = [
    ("task", lambda r: _e(r["task"]), None), ("category", lambda r: _e(r["category"]), None),
    ("agent", lambda r: _e(r["label"]), None), ("trial", lambda r: str(r["trial"]), None),
    ("status", lambda r: _e(r["status"]), None),
    ("outcome", lambda r: f"<span class={_e(r['outcome'])}>{_e(r['outcome'])}</span>", None),
    ("failure category", _why, None), ("attempts", lambda r: _e(r.get("attempts")), None),
    ("steps", lambda r: _e(r.get("steps")), lambda r: _num(r.get("steps"))),
    ("duration", lambda r: "" if _num(r.get("duration")) is None else f"{r['duration']:.1f} s",
     lambda r: _num(r.get("duration"))),
    ("cost", lambda r: "" if _num(r.get("cost_usd")) is None else f"${r['cost_usd']:.4f}",
     lambda r: _num(r.get("cost_usd"))),
    ("reason", lambda r: _e(str(r["stop_reason"] or "")[:300]), None),
]


def _runs_table(root: Path, rows: list[dict[str, Any]]) -> str:
    out = ["<h2>Runs</h2><p><input id=filter type=search placeholder='filter: words that must all appear "
           "(e.g. travel fail)'> <span id=shown class=muted></span></p><table id=runs><thead><tr>"
           + "".join(f"<th>{_e(c)}</th>" for c, _, _ in RUN_COLUMNS) + "<th>run</th></tr></thead><tbody>"]
    for r in rows:
        run_dir = root / r["run_dir"]
        link = _report(run_dir) if run_dir.is_dir() and r["outcome"] != "todo" else None
        href = f'<a href="{_e(r["run_dir"])}/{link}">report</a>' if link else _e(r["run_dir"])
        cells = []
        for _, cell, key in RUN_COLUMNS:
            v = key(r) if key is not None else None
            cells.append((f"<td data-v='{'' if v is None else v}'>" if key is not None else "<td>") + cell(r) + "</td>")
        out.append("<tr>" + "".join(cells) + f"<td>{href}</td></tr>")
    out.append("</tbody></table>")
    return "".join(out)


def render_overview(root: Path, summary: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    marked = any(labels for stage in summary["best"].values() for labels in stage.values())
    notes = (["Bold: the unique best in the column."] if marked else []) + summary["notes"]
    agreement = ""
    if summary.get("judge_agreement"):
        from clawrec.bench.agreement import render_text

        agreement = f"<h2>Judge agreement</h2><pre>{_e(render_text(summary['judge_agreement']))}</pre>"
    return "\n".join([
        "<!doctype html><meta charset=utf-8><title>clawrec bench</title>", f"<style>{STYLE}</style>",
        f"<h1>clawrec bench</h1><p class=muted>{summary['tasks']} task(s) × {summary['trials']} trial(s), "
        f"judge: {_e(summary['judge'])}</p>",
        _plots(summary),
        "<h2>Tables</h2>",
        _stage_table(summary, "stage2", "Stage 2: judged PASS (% ± SE, n judged runs)"),
        _stage_table(summary, "stage1", "Stage 1: terminal request intercepted (% ± SE, n finished runs)"),
        _agents_table(summary), _failures_table(summary),
        "".join(f"<p class=note>{_e(n)}</p>" for n in notes), agreement,
        _runs_table(root, rows), f"<script>{SCRIPT}</script>"]) + "\n"
