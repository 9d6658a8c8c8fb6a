"""`clawrec consistency-agreement LABELS.csv DIR`: how well the consistency score separates pairs of runs a person
labelled consistent or inconsistent (Cybernaut's Table 2: accuracy and F1 at the best threshold; Table 3: the mean
score of each class), as judge-agreement does for verdicts.

LABELS.csv has a header with `run_a`, `run_b` (run directories, relative to DIR or absolute) and `label`
(`consistent` | `inconsistent`, case-insensitive); other columns (a `why`) are ignored. The best threshold is the one
with the highest accuracy (consistent = score ≥ threshold); among equally accurate ones, the middle of the widest gap
between scores, so that it sits as far as possible from both classes.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from evaluator.consistency import DEFAULT_THRESHOLD, pair, side
from evaluator.labels import LabelsError, read_rows, under
from rundir.reader import RunDir

LABELS = ("consistent", "inconsistent")


def read_labels(path: Path, root: Path) -> list[tuple[Path, Path, bool]]:
    """[(run_a, run_b, consistent)], runs resolved; a bad header or row is one LabelsError naming the line."""
    fields, rows = read_rows(path)
    need = [c for c in ("run_a", "run_b", "label") if c not in fields]
    if need:
        raise LabelsError(f"{path}:1: header: needs the columns run_a, run_b and label (missing: {', '.join(need)})")
    out = []
    for line, rec in rows:
        label = rec["label"].lower()
        if label not in LABELS:
            raise LabelsError(f"{path}:{line}: label: {rec['label']!r} is not consistent or inconsistent")
        runs = []
        for col in ("run_a", "run_b"):
            p = under(root, rec[col])
            if not p.is_dir():
                raise LabelsError(f"{path}:{line}: {col}: {rec[col]!r}: no such run directory under {root}")
            runs.append(p.resolve())
        out.append((runs[0], runs[1], label == "consistent"))
    if not out:
        raise LabelsError(f"{path}: no labelled pairs")
    return out


def _stats(scores: list[float], labels: list[bool], threshold: float) -> dict[str, Any]:
    pred = [s >= threshold for s in scores]
    tp = sum(p and y for p, y in zip(pred, labels))
    fp = sum(p and not y for p, y in zip(pred, labels))
    fn = sum(not p and y for p, y in zip(pred, labels))
    tn = len(pred) - tp - fp - fn
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    f1 = 2 * precision * recall / (precision + recall) if precision and recall else 0.0
    return {"threshold": round(threshold, 4), "accuracy": (tp + tn) / len(pred), "f1": f1, "precision": precision,
            "recall": recall, "confusion": {"tp": tp, "fp": fp, "fn": fn, "tn": tn}}


def best_threshold(scores: list[float], labels: list[bool]) -> float:
    cuts = sorted(set(scores))
    candidates = [(a + b) / 2 for a, b in zip(cuts, cuts[1:])] + [cuts[0], cuts[-1] + 1e-9]
    def rank(t: float) -> tuple[float, float]:
        gap = min((abs(s - t) for s in scores), default=0.0)
        return _stats(scores, labels, t)["accuracy"], gap
    return max(candidates, key=rank)


def agreement(labels_path: Path, root: Path) -> dict[str, Any]:
    labelled = read_labels(labels_path, root)
    cache: dict[Path, Any] = {}

    def get(p: Path) -> Any:
        if p not in cache:
            cache[p] = side(RunDir(p))
        return cache[p]

    rows = []
    for a, b, consistent in labelled:
        p = pair(get(a), get(b))
        rows.append({"run_a": str(a), "run_b": str(b), "label": "consistent" if consistent else "inconsistent",
                     "score": round(p.score, 4), "divergences": p.divergences[:3],
                     "payload_differences": p.payload_differences[:3]})
    scores = [r["score"] for r in rows]
    labels = [r["label"] == "consistent" for r in rows]
    best = best_threshold(scores, labels)
    means = {lab: (statistics.fmean(r["score"] for r in rows if r["label"] == lab)
                   if any(r["label"] == lab for r in rows) else None) for lab in LABELS}
    return {"labels": str(labels_path), "pairs": len(rows), "best": _stats(scores, labels, best),
            "default": _stats(scores, labels, DEFAULT_THRESHOLD), "mean_score": means, "rows": rows}


def render_text(result: dict[str, Any]) -> str:
    def f(v: Any) -> str:
        return "–" if v is None else f"{v:.3f}"

    lines = [f"{'score':>6}  {'label':<12} pair"]
    for r in result["rows"]:
        lines.append(f"{r['score']:>6.3f}  {r['label']:<12} {r['run_a']}  ~  {r['run_b']}")
    lines.append("")
    lines.append(f"mean score: consistent {f(result['mean_score']['consistent'])}, inconsistent "
                 f"{f(result['mean_score']['inconsistent'])} ({result['pairs']} pairs)")
    for name in ("best", "default"):
        s = result[name]
        lines.append(f"{name + ' threshold':<18} {s['threshold']:.3f}: accuracy {s['accuracy']:.3f}, F1 {f(s['f1'])}, "
                     f"precision {f(s['precision'])}, recall {f(s['recall'])}")
    return "\n".join(lines)
