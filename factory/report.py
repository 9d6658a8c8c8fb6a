"""The eval's numbers and its two files: OUT/eval.json (summary + every site's runs) and OUT/eval.md (the
tables: overall, per family, per channel; every failing site with its run directories)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

AGENTS = ("solver", "perturbed", "null", "random")
CAUGHT_EXPECTED = ("solver", "perturbed")


def _metrics(results: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(results)
    expected = [r["runs"][a] for r in results for a in CAUGHT_EXPECTED if a in r["runs"]]
    runs = [run for r in results for run in r["runs"].values()]
    fps = sum(1 for run in expected if run["distractors_missing"])
    fps += sum(1 for r in results for a in ("null", "random") if r["runs"].get(a, {}).get("caught"))
    out: dict[str, Any] = {
        "sites": n,
        "recall": sum(1 for run in expected if run["caught"]) / len(expected) if expected else 0.0,
        "false_positives": fps,
        "leaks": sum(1 for run in runs if run.get("leak")),
        "judge_accuracy": (sum(r["judge_solver_pass"] for r in results) + sum(r["judge_perturbed_fail"]
                                                                              for r in results)) / (2 * n) if n else 0.0,
        "annotate_success": sum(r["annotate_ok"] for r in results) / n if n else 0.0,
        "progress": {a: round(sum(r["runs"][a]["progress"] for r in results) / n, 4) if n else 0.0 for a in AGENTS},
        "failing_sites": sum(1 for r in results if r["failures"]),
    }
    out["recall"] = round(out["recall"], 4)
    out["judge_accuracy"] = round(out["judge_accuracy"], 4)
    out["annotate_success"] = round(out["annotate_success"], 4)
    return out


def summarize(results: list[dict[str, Any]], wall_s: float, jobs: int, planned: int | None = None) -> dict[str, Any]:
    n_runs = sum(len(r["runs"]) for r in results)
    by = {key: {v: _metrics([r for r in results if r[key] == v]) for v in sorted({r[key] for r in results})}
          for key in ("family", "channel")}
    return {"overall": _metrics(results), "per_family": by["family"], "per_channel": by["channel"],
            "runs": n_runs, "wall_s": round(wall_s, 1), "jobs": jobs, "planned_sites": planned or len(results),
            "runs_per_hour": round(n_runs / wall_s * 3600) if wall_s > 0 else 0,
            "failing": [{"id": r["id"], "family": r["family"], "channel": r["channel"], "failures": r["failures"],
                         "runs": {a: run["dir"] for a, run in r["runs"].items()}} for r in results if r["failures"]]}


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def _row(name: str, m: dict[str, Any]) -> str:
    p = m["progress"]
    return (f"| {name} | {m['sites']} | {_pct(m['recall'])} | {m['false_positives']} | {m['leaks']} | "
            f"{_pct(m['judge_accuracy'])} | {_pct(m['annotate_success'])} | {p['solver']:.2f} / {p['perturbed']:.2f}"
            f" / {p['null']:.2f} / {p['random']:.2f} |")


HEADER = ("| | sites | recall | false positives | leaks | judge accuracy | annotate | progress solver / perturbed "
          "/ null / random |\n|---|---|---|---|---|---|---|---|")


def markdown(summary: dict[str, Any]) -> str:
    partial = summary["planned_sites"] != summary["overall"]["sites"]
    lines = ["# clawrec factory eval", ""] + ([f"Partial: {summary['overall']['sites']} of {summary['planned_sites']} "
                                                "sites evaluated so far.", ""] if partial else []) + [
             f"{summary['runs']} runs in {summary['wall_s']} s at -j {summary['jobs']}: "
             f"{summary['runs_per_hour']} runs/hour.", "", HEADER, _row("all", summary["overall"]), "",
             "## Per family", "", HEADER] + [_row(k, m) for k, m in summary["per_family"].items()]
    lines += ["", "## Per channel", "", HEADER] + [_row(k, m) for k, m in summary["per_channel"].items()]
    lines += ["", "## Failing sites", ""]
    if not summary["failing"]:
        lines.append("None.")
    for f in summary["failing"]:
        lines.append(f"- `{f['id']}` ({f['family']}, {f['channel']}): " + "; ".join(f["failures"]))
        lines += [f"  - {agent}: `{d}`" for agent, d in f["runs"].items()]
    return "\n".join(lines) + "\n"


def write_reports(out: Path, summary: dict[str, Any], results: list[dict[str, Any]]) -> None:
    (out / "eval.json").write_text(json.dumps({"summary": summary, "sites": results}, indent=1) + "\n",
                                   encoding="utf-8")
    (out / "eval.md").write_text(markdown(summary), encoding="utf-8")
