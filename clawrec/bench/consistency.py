"""The bench's consistency column: how steadily each agent repeats a task over its trials (evaluator/consistency.py),
beside pass^k (how often every trial passes).

Per agent row: for each task with two or more finished trials (the run ended: judged or not; infrastructure failures
left out), the mean pairwise consistency of those trials; the row's value is the mean over those tasks.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

FINISHED = ("pass", "fail", "judge_inconclusive", "unjudged")


def consistency_by_label(root: Path, rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """label → {mean_pairwise, tasks, per_task}; mean_pairwise is None when no task has two finished trials."""
    from evaluator.consistency import mean_pairwise
    from evaluator.errors import EvaluatorError

    groups: dict[str, dict[str, list[Path]]] = {}
    for r in rows:
        if r["outcome"] in FINISHED and r.get("run_dir"):
            groups.setdefault(r["label"], {}).setdefault(r["task"], []).append(root / r["run_dir"])
    out: dict[str, dict[str, Any]] = {}
    for label, tasks in groups.items():
        per_task = {}
        for task, runs in sorted(tasks.items()):
            try:
                score = mean_pairwise(runs)
            except (EvaluatorError, OSError, ValueError):  # a run that cannot be read: that task has no score
                score = None
            if score is not None:
                per_task[task] = round(score, 4)
        out[label] = {"mean_pairwise": statistics.fmean(per_task.values()) if per_task else None,
                      "tasks": len(per_task), "per_task": per_task}
    return out
