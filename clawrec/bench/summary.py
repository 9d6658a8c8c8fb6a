"""summary.{json,md,csv}: the ClawBench paper's Table 2 shape from results rows.

One row per agent/model; columns Overall + the 8 category groups. Two stages, never mixed: Stage 1 = the terminal
request was intercepted (the agent got to submitting); Stage 2 = the judge said PASS. Denominators: Stage 1 counts
finished runs; Stage 2 counts judged runs (PASS or FAIL). Infrastructure failures, runs that refused their input,
runs not run yet, inconclusive judgments and runs stopped by a verification wall (a bot check or CAPTCHA: outcome
`wall`, its own column) are counted and left out of the denominators (the notes say how many).
SE is the binomial standard error sqrt(p(1-p)/n) over runs. With k > 1 trials, pass@k (some trial passes) and pass^k
(every trial passes) use the unbiased estimators over each task's judged trials (1 - C(n-c,k)/C(n,k) and
C(c,k)/C(n,k)); tasks with fewer than k judged trials are left out of both and counted.
Failure categories: each run judged FAIL counted under its diagnosis's category (RUN/diagnosis.json, evaluator/
failure.py's taxonomy), or `unclassified` when the diagnosis gives none (no diagnosis, or an LLM judge's FAIL of a run
whose payload passes); self-report gaps (the agent claims success, no terminal request was sent) among judged runs.
Infrastructure failures and inconclusive judgments keep their own columns in the runs table. Bold marks a unique
best only (a tie, e.g. every agent at 0.0, is nobody's best).
"""

from __future__ import annotations

import csv
import io
import math
import statistics
from pathlib import Path
from typing import Any

from clawrec.bench.plan import CATEGORIES, Plan
from evaluator.failure import CATEGORIES as FAILURES

COLUMNS = ("overall", *CATEGORIES)
FINISHED = ("pass", "fail", "judge_inconclusive", "unjudged")
EXCLUDED = ("infra", "stopped", "bad_input", "todo", "wall")
OUTCOMES = ("pass", "fail", "judge_inconclusive", "unjudged", "infra", "stopped", "bad_input", "todo", "wall")


def rate(hits: int, n: int) -> dict[str, Any]:
    if n == 0:
        return {"hits": 0, "n": 0, "rate": None, "se": None}
    p = hits / n
    return {"hits": hits, "n": n, "rate": p, "se": math.sqrt(p * (1 - p) / n)}


def stages(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    finished = [r for r in rows if r["outcome"] in FINISHED]
    judged = [r for r in rows if r["outcome"] in ("pass", "fail")]
    return {"stage1": rate(sum(1 for r in finished if r["intercepted"]), len(finished)),
            "stage2": rate(sum(1 for r in judged if r["outcome"] == "pass"), len(judged))}


def pass_k(rows: list[dict[str, Any]], k: int) -> dict[str, Any]:
    """pass@k and pass^k over tasks with at least k judged trials."""
    by_task: dict[str, list[bool]] = {}
    for r in rows:
        if r["outcome"] in ("pass", "fail"):
            by_task.setdefault(r["task"], []).append(r["outcome"] == "pass")
    tasks = {r["task"] for r in rows}
    at, hat = [], []
    for trials in by_task.values():
        n, c = len(trials), sum(trials)
        if n < k:
            continue
        at.append(1 - math.comb(n - c, k) / math.comb(n, k))
        hat.append(math.comb(c, k) / math.comb(n, k))
    return {"k": k, "pass_at_k": statistics.fmean(at) if at else None,
            "pass_hat_k": statistics.fmean(hat) if hat else None, "tasks": len(at),
            "tasks_left_out": len(tasks) - len(at)}


def failures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Runs judged FAIL by failure category (+ unclassified), and self-report gaps among judged runs."""
    failed = [r for r in rows if r["outcome"] == "fail"]
    counts = {c: sum(1 for r in failed if r.get("failure_category") == c) for c in FAILURES}
    return {"categories": counts, "unclassified": len(failed) - sum(counts.values()), "failed": len(failed),
            "self_report_gaps": sum(1 for r in rows if r["outcome"] in ("pass", "fail") and r.get("self_report_gap"))}


def _cost(rows: list[dict[str, Any]]) -> float | None:
    vals = [v for r in rows for v in (r.get("cost_usd"), r.get("judge_cost_usd")) if isinstance(v, (int, float))]
    return round(sum(vals), 6) if vals else None


def _progress(rows: list[dict[str, Any]], root: Path | None) -> dict[str, Any] | None:
    """Mean dense progress over the runs of generated sites (RUN/subgoals.jsonl; evaluator/progress_judge.py)."""
    from evaluator.progress_judge import run_progress

    vals = [p for r in rows if root is not None and r.get("run_dir")
            and (p := run_progress(root / r["run_dir"])) is not None]
    return {"mean": round(sum(vals) / len(vals), 4), "n": len(vals)} if vals else None


def summarize(plan: Plan, rows: list[dict[str, Any]], root: Path | None = None) -> dict[str, Any]:
    labels = [a.label for a in plan.agents]
    consistency: dict[str, Any] = {}
    if plan.trials > 1 and root is not None:  # the runs are read from disk (clawrec/bench/consistency.py)
        from clawrec.bench.consistency import consistency_by_label

        consistency = consistency_by_label(root, rows)
    out_rows = []
    for agent in plan.agents:
        mine = [r for r in rows if r["label"] == agent.label]
        cols = {"overall": stages(mine)}
        for cat in CATEGORIES:
            cols[cat] = stages([r for r in mine if r["category"] == cat])
        durations = [r["duration"] for r in mine if r["outcome"] in FINISHED and r["duration"] is not None]
        counts = {o: sum(1 for r in mine if r["outcome"] == o) for o in OUTCOMES}
        out_rows.append({"label": agent.label, "agent": agent.name, "model": agent.model, "columns": cols,
                         "runs": len(mine), "counts": counts,
                         "pass_k": pass_k(mine, plan.trials) if plan.trials > 1 else None,
                         "consistency": consistency.get(agent.label) if plan.trials > 1 else None,
                         "failures": failures(mine),
                         "median_duration_s": statistics.median(durations) if durations else None,
                         "cost_usd": _cost(mine), "progress": _progress(mine, root)})
    best: dict[str, dict[str, list[str]]] = {"stage1": {}, "stage2": {}}
    for stage in ("stage1", "stage2"):
        for col in COLUMNS:
            vals = [(r["columns"][col][stage]["rate"], r["label"]) for r in out_rows
                    if r["columns"][col][stage]["rate"] is not None]
            top = max((v for v, _ in vals), default=None)
            leaders = [lab for v, lab in vals if v == top]
            best[stage][col] = leaders if len(labels) > 1 and len(vals) > 1 and len(leaders) == 1 else []  # unique
    total = {o: sum(r["counts"][o] for r in out_rows) for o in out_rows[0]["counts"]} if out_rows else {}
    notes = []
    excluded = total.get("infra", 0) + total.get("bad_input", 0)
    if excluded:
        notes.append(f"{excluded} run(s) ended in an infrastructure failure or refused their input; they are left "
                     "out of every denominator.")
    if total.get("stopped"):
        notes.append(f"{total['stopped']} run(s) were stopped with the bench; they run again on resume (a stop is "
                     "not a failure and spends no --retries).")
    if total.get("wall"):
        notes.append(f"{total['wall']} run(s) were stopped by a verification wall (bot check or CAPTCHA: see each "
                     "run's diagnosis.json for the URL and marker); they are left out of every denominator.")
    if total.get("todo"):
        notes.append(f"{total['todo']} planned run(s) have not run yet; the table is partial.")
    if total.get("judge_inconclusive"):
        notes.append(f"{total['judge_inconclusive']} judgment(s) were inconclusive (the judge could not answer); "
                     "they are left out of the Stage 2 denominator. Re-judge with `clawrec bench DIR --rejudge`.")
    if total.get("unjudged"):
        notes.append(f"{total['unjudged']} finished run(s) are not judged; left out of Stage 2.")
    degraded = [r for r in rows if r.get("layers_failed") and r["outcome"] in FINISHED]
    if degraded:
        by_layer = {}
        for r in degraded:
            for name in r["layers_failed"]:
                by_layer[name] = by_layer.get(name, 0) + 1
        which = ", ".join(f"{name} {n}" for name, n in sorted(by_layer.items()))
        notes.append(f"{len(degraded)} finished run(s) lost a layer on the way ({which}; results.jsonl "
                     "`layers_failed` says why); their verdicts stand on the other layers.")
    unclassified = sum(r["failures"]["unclassified"] for r in out_rows)
    if unclassified:
        notes.append(f"{unclassified} FAIL run(s) have no failure category (no diagnosis.json, or the diagnosis's "
                     "payload comparison passes them).")
    return {"version": 1, "trials": plan.trials, "judge": plan.judge, "tasks": len(plan.specs),
            "columns": list(COLUMNS), "failure_categories": FAILURES, "rows": out_rows, "best": best, "totals": total,
            "layers_failed": len(degraded), "notes": notes,
            "definitions": {
                "stage1": "terminal request intercepted / finished runs",
                "stage2": "judged PASS / judged runs (PASS or FAIL)",
                "se": "binomial standard error sqrt(p(1-p)/n) over runs",
                "pass_at_k": "mean over tasks of 1 - C(n-c,k)/C(n,k) (n judged trials, c passes, n >= k)",
                "pass_hat_k": "mean over tasks of C(c,k)/C(n,k)",
                "consistency": "mean over tasks of the mean pairwise execution consistency of the finished trials "
                               "(clawrec consistency; 0-1)",
                "failures": "runs judged FAIL by their diagnosis.json category (unclassified: none); "
                            "self_report_gaps: judged runs whose agent claims success but sent no terminal request"}}


def _pct(cell: dict[str, Any], bold: bool = False) -> str:
    if cell["rate"] is None:
        return "–"
    text = f"{100 * cell['rate']:.1f} ± {100 * cell['se']:.1f} (n={cell['n']})"
    return f"**{text}**" if bold else text


def render_md(summary: dict[str, Any]) -> str:
    cols = summary["columns"]
    head = "| agent | " + " | ".join(c.capitalize() if c == "overall" else c for c in cols) + " |"
    sep = "|---" * (len(cols) + 1) + "|"
    lines = [f"# Bench summary ({summary['tasks']} tasks × {summary['trials']} trial(s), judge: {summary['judge']})",
             ""]
    for stage, title in (("stage2", "Stage 2: judged PASS (% ± SE, n judged runs)"),
                         ("stage1", "Stage 1: terminal request intercepted (% ± SE, n finished runs)")):
        lines += [f"## {title}", "", head, sep]
        for r in summary["rows"]:
            cells = [_pct(r["columns"][c][stage], r["label"] in summary["best"][stage][c]) for c in cols]
            lines.append(f"| {r['label']} | " + " | ".join(cells) + " |")
        lines.append("")
    multi = summary["trials"] > 1
    lines += ["## Runs", "", "| agent | runs | PASS | FAIL | pass@k | pass^k | " + ("consistency | " if multi else "")
              + "infra failures | verification walls | judge_inconclusive | median duration | total cost |",
              "|---" * (11 + multi) + "|"]
    for r in summary["rows"]:
        pk = r["pass_k"]
        c = r["counts"]
        cons = (r.get("consistency") or {}).get("mean_pairwise")
        lines.append(
            f"| {r['label']} | {r['runs']} | {c['pass']} | {c['fail']} | "
            + (f"{100 * pk['pass_at_k']:.1f}% (k={pk['k']})" if pk and pk["pass_at_k"] is not None else "–") + " | "
            + (f"{100 * pk['pass_hat_k']:.1f}%" if pk and pk["pass_hat_k"] is not None else "–") + " | "
            + ((f"{cons:.2f}" if cons is not None else "–") + " | " if multi else "")
            + f"{c['infra'] + c['bad_input']} | {c['wall']} | {c['judge_inconclusive']} | "
            + (f"{r['median_duration_s']:.1f} s" if r["median_duration_s"] is not None else "–") + " | "
            + (f"${r['cost_usd']:.4f}" if r["cost_usd"] is not None else "–") + " |")
    with_progress = [r for r in summary["rows"] if r.get("progress")]
    if with_progress:  # tasks with subgoals (generated sites): the dense reward beside PASS/FAIL
        lines += ["", "Mean progress (subgoals reached before the terminal request / total): " + "; ".join(
            f"{r['label']} {r['progress']['mean']:.2f} (n={r['progress']['n']})" for r in with_progress) + "."]
    lines += _render_failures(summary)
    marked = any(labels for stage in summary["best"].values() for labels in stage.values())
    lines += ["", " ".join((["Bold: the unique best in the column."] if marked else []) + summary["notes"]), ""]
    return "\n".join(lines)


def _render_failures(summary: dict[str, Any]) -> list[str]:
    cats = summary["failure_categories"]
    lines = ["", "## Failure categories (runs judged FAIL, by the category in each run's diagnosis.json)", "",
             "| agent | " + " | ".join(cats.values()) + " | unclassified | self-report gaps |",
             "|---" * (len(cats) + 3) + "|"]
    for r in summary["rows"]:
        f = r["failures"]
        lines.append(f"| {r['label']} | " + " | ".join(str(f["categories"][c]) for c in cats)
                     + f" | {f['unclassified']} | {f['self_report_gaps']} |")
    return lines


def render_csv(summary: dict[str, Any]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    cols = summary["columns"]
    header = ["label", "agent", "model"]
    for stage in ("stage2", "stage1"):
        for c in cols:
            header += [f"{stage}_{c}", f"{stage}_{c}_se", f"{stage}_{c}_n"]
    header += ["pass_at_k", "pass_hat_k", "k", "runs", "infra", "judge_inconclusive", "median_duration_s",
               "cost_usd", *(f"fail_{c}" for c in summary["failure_categories"]), "fail_unclassified",
               "self_report_gaps", "consistency", "verification_walls"]
    w.writerow(header)
    for r in summary["rows"]:
        line: list[Any] = [r["label"], r["agent"], r["model"] or ""]
        for stage in ("stage2", "stage1"):
            for c in cols:
                cell = r["columns"][c][stage]
                line += ["" if cell["rate"] is None else f"{cell['rate']:.6f}",
                         "" if cell["se"] is None else f"{cell['se']:.6f}", cell["n"]]
        pk = r["pass_k"] or {}
        line += ["" if pk.get("pass_at_k") is None else f"{pk['pass_at_k']:.6f}",
                 "" if pk.get("pass_hat_k") is None else f"{pk['pass_hat_k']:.6f}", pk.get("k", 1), r["runs"],
                 r["counts"]["infra"] + r["counts"]["bad_input"], r["counts"]["judge_inconclusive"],
                 "" if r["median_duration_s"] is None else r["median_duration_s"],
                 "" if r["cost_usd"] is None else r["cost_usd"]]
        f = r["failures"]
        cons = (r.get("consistency") or {}).get("mean_pairwise")
        line += [*(f["categories"][c] for c in summary["failure_categories"]), f["unclassified"],
                 f["self_report_gaps"], "" if cons is None else f"{cons:.6f}", r["counts"]["wall"]]
        w.writerow(line)
    return buf.getvalue()
