"""overview.html: the bench's table and one line per run, each linking its report.html (rendered on demand).

Why render each run's report here: `clawrec bench report DIR --html` is how a person browses a finished bench; a
run without report.html gets one (evaluator.report, the same page `clawrec view` writes). Text from runs is escaped.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from clawrec.bench.summary import render_md

STYLE = """body{font:14px system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}th{background:#f3f3f3}.pass{color:#176f2c}
.fail{color:#a11}.infra,.judge_inconclusive{color:#a60}pre{background:#f7f7f7;padding:1em;overflow:auto}"""


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


def render_overview(root: Path, summary: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    out = ["<!doctype html><meta charset=utf-8><title>clawrec bench</title>", f"<style>{STYLE}</style>",
           "<h1>clawrec bench</h1>", f"<pre>{html.escape(render_md(summary))}</pre>",
           "<h2>Runs</h2><table><tr><th>task</th><th>category</th><th>agent</th><th>trial</th><th>status</th>"
           "<th>outcome</th><th>failure category</th><th>duration</th><th>reason</th><th>run</th></tr>"]
    for r in rows:
        run_dir = root / r["run_dir"]
        link = _report(run_dir) if run_dir.is_dir() and r["outcome"] != "todo" else None
        href = f'<a href="{html.escape(r["run_dir"])}/{link}">report</a>' if link else html.escape(r["run_dir"])
        dur = f"{r['duration']:.1f} s" if isinstance(r.get("duration"), (int, float)) else ""
        why = str(r.get("failure_category") or "") + (" · self-report gap" if r.get("self_report_gap") else "")
        out.append(f"<tr><td>{html.escape(r['task'])}</td><td>{html.escape(r['category'])}</td>"
                   f"<td>{html.escape(r['label'])}</td><td>{r['trial']}</td>"
                   f"<td>{html.escape(str(r['status'] or ''))}</td>"
                   f"<td class={html.escape(r['outcome'])}>{html.escape(r['outcome'])}</td><td>{html.escape(why)}</td>"
                   f"<td>{dur}</td>"
                   f"<td>{html.escape(str(r['stop_reason'] or ''))[:300]}</td><td>{href}</td></tr>")
    out.append("</table>")
    return "\n".join(out) + "\n"
