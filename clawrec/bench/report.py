"""Render a bench folder: results.jsonl + summary.{json,md,csv} (+ overview.html with --html), from disk only.

A judged run without diagnosis.json (judged by a bench older than the failure categories, or its diagnosis removed)
is diagnosed first (clawrec/bench/judging.py, the code `clawrec diagnose` runs), so its category is counted.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from clawrec.bench.judging import DIAGNOSIS_FILE, diagnose_slot
from clawrec.bench.plan import Plan
from clawrec.bench.results import collect, write_results
from clawrec.bench.state import read_slot
from clawrec.bench.summary import render_csv, render_md, summarize

LABELS = "labels.csv"


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def render(root: Path, plan: Plan, html: bool = False) -> dict[str, Any]:
    """Rebuild every derived file of the bench; returns the summary."""
    for slot in plan.slots():
        st = read_slot(root, slot)
        if st.kind == "done" and st.judge_state != "unjudged" and not (st.path / DIAGNOSIS_FILE).exists():
            diagnose_slot(st, plan.run_flags.get("reference"))
    rows = collect(root, plan)
    write_results(root, rows)
    summary = summarize(plan, rows, root)
    md = render_md(summary)
    if (root / LABELS).is_file():  # human labels beside the runs: the judges' agreement is part of the report
        from clawrec.bench.agreement import agreement, render_text

        summary["judge_agreement"] = agreement(root / LABELS, root)
        md += f"\n## Judge agreement with {LABELS}\n\n```\n{render_text(summary['judge_agreement'])}\n```\n"
    _write(root / "summary.json", json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    _write(root / "summary.md", md)
    _write(root / "summary.csv", render_csv(summary))
    if html:
        from clawrec.bench.overview import render_overview

        _write(root / "overview.html", render_overview(root, summary, rows))
    return summary
