"""Judge agreement with human labels and between judges: agreement, Cohen's κ, precision/recall of PASS.

LABELS.csv has a header with `run` (a run directory, relative to the bench folder or absolute) and `label`
(PASS|FAIL, upper case as verdicts are); other columns are ignored. A label file is a person's work: a row naming no
run directory, a run listed twice (which label would count?) or a label in another spelling is refused with
`LABELS.csv:LINE: field: message`, never guessed. Each run's verdict.json gives the judges' answers: a `--judge both`
verdict carries both the payload and the LLM judge's, so one bench gives every pair. Runs without a verdict (or whose
judge was inconclusive) are counted as missing, not as disagreement. Every run where a judge and the label differ is
listed (run, label, verdict): those are the runs to read.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from clawrec.errors import UsageError
from evaluator.labels import read_rows, under

HUMAN = "human"


def read_labels(path: Path, root: Path) -> dict[Path, bool]:
    """run dir (resolved) → label is PASS. Bad rows are one UsageError naming the line."""
    fields, rows = read_rows(path, UsageError)
    if "run" not in fields or "label" not in fields:
        raise UsageError(f"{path}:1: header: needs the columns `run` and `label` (has: {', '.join(fields) or 'none'})")
    out: dict[Path, bool] = {}
    first_line: dict[Path, int] = {}
    for line, rec in rows:
        if rec["label"] not in ("PASS", "FAIL"):
            hint = " (labels are upper case)" if rec["label"].upper() in ("PASS", "FAIL") else ""
            raise UsageError(f"{path}:{line}: label: {rec['label']!r} is not PASS or FAIL{hint}")
        run = under(root, rec["run"]).resolve()
        if not rec["run"] or not (run / "manifest.json").is_file():
            raise UsageError(f"{path}:{line}: run: {rec['run']!r} is not a run directory under {root} "
                             "(no manifest.json)")
        if run in first_line:
            raise UsageError(f"{path}:{line}: run: {rec['run']!r} is labelled again (first on line "
                             f"{first_line[run]}); one label per run")
        first_line[run] = line
        out[run] = rec["label"] == "PASS"
    if not out:
        raise UsageError(f"{path}: no labelled runs")
    return out


def judge_answers(run: Path) -> dict[str, bool]:
    """judge name → PASS, from RUN/verdict.json (both judges' when it is a `both` verdict)."""
    try:
        v = json.loads((run / "verdict.json").read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(v, dict) or v.get("verdict") not in ("PASS", "FAIL"):
        return {}
    out = {str(v.get("judge") or "judge"): v["verdict"] == "PASS"}
    for name, sub in (v.get("judges") or {}).items():
        if isinstance(sub, dict) and sub.get("verdict") in ("PASS", "FAIL"):
            out[name] = sub["verdict"] == "PASS"
    return out


def compare(a: list[bool], b: list[bool]) -> dict[str, Any]:
    """Agreement, Cohen's κ, and precision/recall of `a` taking `b` as the truth (PASS = positive)."""
    n = len(a)
    if n == 0:
        return {"n": 0, "agreement": None, "kappa": None, "precision": None, "recall": None}
    tp = sum(x and y for x, y in zip(a, b))
    fp = sum(x and not y for x, y in zip(a, b))
    fn = sum(not x and y for x, y in zip(a, b))
    agree = sum(x == y for x, y in zip(a, b)) / n
    pa, pb = sum(a) / n, sum(b) / n
    chance = pa * pb + (1 - pa) * (1 - pb)
    kappa = 1.0 if chance == 1 else (agree - chance) / (1 - chance)
    return {"n": n, "agreement": agree, "kappa": kappa,
            "precision": tp / (tp + fp) if tp + fp else None, "recall": tp / (tp + fn) if tp + fn else None,
            "confusion": {"tp": tp, "fp": fp, "fn": fn, "tn": n - tp - fp - fn}}


def agreement(labels_path: Path, root: Path) -> dict[str, Any]:
    labels = read_labels(labels_path, root)
    answers = {run: {HUMAN: lab, **judge_answers(run)} for run, lab in labels.items()}
    judges = sorted({j for a in answers.values() for j in a if j != HUMAN})
    pairs = []
    for x, y in [(j, HUMAN) for j in judges] + list(itertools.combinations(judges, 2)):
        both = [(a[x], a[y]) for a in answers.values() if x in a and y in a]
        stats = compare([p for p, _ in both], [q for _, q in both])
        pairs.append({"judge": x, "against": y, **stats})
    missing = sorted(str(r) for r, a in answers.items() if len(a) == 1)
    disagreements = [{"run": _shown(run, root), "label": "PASS" if a[HUMAN] else "FAIL", "judge": j,
                      "verdict": "PASS" if a[j] else "FAIL"}
                     for run, a in sorted(answers.items()) for j in judges if j in a and a[j] != a[HUMAN]]
    return {"labels": str(labels_path), "runs": len(labels), "judges": judges, "pairs": pairs,
            "unjudged_runs": missing, "disagreements": disagreements}


def _shown(run: Path, root: Path) -> str:
    """A run as the labels file would name it: relative to the folder when under it."""
    try:
        return str(run.relative_to(root.resolve()))
    except ValueError:
        return str(run)


def render_text(result: dict[str, Any]) -> str:
    def f(v: Any) -> str:
        return "–" if v is None else f"{v:.3f}"

    lines = [f"{'judge':<10} {'against':<10} {'n':>4} {'agree':>7} {'kappa':>7} {'precision':>9} {'recall':>7}"]
    for p in result["pairs"]:
        lines.append(f"{p['judge']:<10} {p['against']:<10} {p['n']:>4} {f(p['agreement']):>7} {f(p['kappa']):>7} "
                     f"{f(p['precision']):>9} {f(p['recall']):>7}")
    if result["unjudged_runs"]:
        lines.append(f"{len(result['unjudged_runs'])} labelled run(s) have no verdict (left out)")
    if result.get("disagreements"):
        lines += ["", "disagreements (run, label, judge: verdict):"]
        lines += [f"  {d['run']}  label {d['label']}  {d['judge']}: {d['verdict']}" for d in result["disagreements"]]
    return "\n".join(lines)
