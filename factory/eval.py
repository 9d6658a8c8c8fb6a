"""`clawrec factory eval OUT`: clawrec measured on every generated site (factory/README.md "Eval").

Per site, through the ordinary run pipeline: the solver (must be caught with payload = oracle, nothing terminal
reaching the server, every distractor reaching it), the perturbed solver (one field wrong: the payload judge must
FAIL naming it), the null and random baselines (no catch), and annotate on the solver's run (check-spec passes;
its spec catches a second solver run with the alternate user values and lets every distractor through)."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

from factory.report import summarize, write_reports
from factory.runs import RunResult, SiteRunner, payload_diff, progress
from factory.serve import read_index, serve_factory


def _run_checks(entry: dict[str, Any], run: RunResult, want_catch: bool) -> list[str]:
    """What is wrong with one run: catch/no catch, leaks, distractors that did not reach the server."""
    bad = []
    if run.error and run.status in ("missing", "crashed"):
        bad.append(f"run failed: {run.error}")
    if want_catch and not run.caught:
        bad.append(f"not caught (status {run.status}{': ' + run.error if run.error else ''})")
    if not want_catch and run.caught:
        bad.append(f"caught {run.caught[0].get('method')} {run.caught[0].get('url')} (false positive)")
    if run.names("terminal"):
        bad.append("leak: the terminal request reached the server")
    if want_catch:
        missing = [d for d in entry["distractors"] if d not in run.names("distractor")]
        if missing:
            bad.append(f"distractors blocked or never sent: {', '.join(missing)}")
    return bad


def evaluate_site(out: Path, entry: dict[str, Any], urls: dict[str, str], log: Path) -> dict[str, Any]:
    runner = SiteRunner(out, entry, urls, log)
    spec = out / entry["spec"]
    total = len(entry["subgoals"])
    res: dict[str, Any] = {"id": entry["id"], "family": entry["family"], "channel": entry["channel"],
                           "runs": {}, "failures": []}

    def record(name: str, run: RunResult, problems: list[str]) -> None:
        res["runs"][name] = {"dir": run.run_dir, "status": run.status, "caught": len(run.caught),
                             "progress": round(progress(run, total), 4), "leak": bool(run.names("terminal")),
                             "distractors_missing": [d for d in entry["distractors"]
                                                     if d not in run.names("distractor")] if run.caught else [],
                             "problems": problems}
        res["failures"] += [f"{name}: {p}" for p in problems]

    solver = runner.run("solver", spec, "command", runner.solver_cmd())
    problems = _run_checks(entry, solver, True)
    if solver.caught and (diff := payload_diff(entry, solver.caught[0])):
        problems.append("payload != oracle: " + "; ".join(diff))
    verdict = runner.judge(solver) if solver.caught else {"verdict": "none"}
    res["judge_solver_pass"] = verdict.get("verdict") == "PASS"
    if not res["judge_solver_pass"]:
        problems.append(f"payload judge gave {verdict.get('verdict')} for the solver")
    record("solver", solver, problems)

    key = entry["perturb"]
    perturbed = runner.run("perturbed", spec, "command", runner.solver_cmd("--set", f"{key['key']}={key['value']}"))
    problems = _run_checks(entry, perturbed, True)
    verdict = runner.judge(perturbed) if perturbed.caught else {"verdict": "none"}
    named = json.dumps(verdict.get("conditions", []))
    res["judge_perturbed_fail"] = verdict.get("verdict") == "FAIL" and key["path"] in named
    if not res["judge_perturbed_fail"]:
        problems.append(f"payload judge gave {verdict.get('verdict')} for the perturbed solver "
                        f"(field {key['path']} {'named' if key['path'] in named else 'not named'})")
    record("perturbed", perturbed, problems)

    for name in ("null", "random"):
        run = runner.run(name, spec, name)
        record(name, run, _run_checks(entry, run, False))

    problems = []
    annotated, text = runner.annotate(solver) if solver.caught else (None, "no solver catch")
    if annotated is None:
        problems.append("annotate failed: " + text.strip().splitlines()[-1] if text.strip() else "annotate failed")
    else:
        ok, report = runner.check_spec(annotated, solver)
        if not ok:
            problems.append("check-spec failed: " + " | ".join(report.splitlines()[-3:]))
        alt_user = runner.dir / "alt_user.json"
        alt_user.write_text(json.dumps(entry["alt_user"], sort_keys=True), encoding="utf-8")
        alt = runner.run("annotated-alt", annotated, "command", runner.solver_cmd(
            "--user", str(alt_user), "--files", str(out / "specs" / "files" / entry["id"])))
        problems += _run_checks(entry, alt, True)
        res["runs"]["annotated-alt"] = {"dir": alt.run_dir, "status": alt.status, "caught": len(alt.caught),
                                        "leak": bool(alt.names("terminal"))}
    res["annotate_ok"] = not problems
    res["annotated_spec"] = str(annotated) if annotated else None
    res["failures"] += [f"annotate: {p}" for p in problems]
    return res


def evaluate(out: Path, jobs: int = 2, ids: list[str] | None = None,
             progress_line: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Evaluate OUT's sites (all, or `ids`) with `jobs` sites at a time; writes OUT/eval.json and OUT/eval.md."""
    out = out.resolve()  # the solver's command line names files in OUT; agents run in their own folder
    index = read_index(out)
    entries = [e for e in index["sites"] if not ids or e["id"] in ids]
    (out / "runs").mkdir(exist_ok=True)
    log = out / "runs" / "sites.jsonl"
    started = time.time()
    done: list[dict[str, Any]] = []
    lock = threading.Lock()
    with serve_factory(out, log, [e["id"] for e in entries]) as server:
        def one(entry: dict[str, Any]) -> dict[str, Any]:
            res = evaluate_site(out, entry, server.urls, log)
            with lock:  # the reports so far, after every site: a long eval stopped early still says what it saw
                done.append(res)
                write_reports(out, summarize(done, time.time() - started, jobs, len(entries)), done)
            if progress_line:
                progress_line(f"{entry['id']} ({entry['channel']}): "
                              f"{'ok' if not res['failures'] else '; '.join(res['failures'])}")
            return res

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            results = list(pool.map(one, entries))
    wall = time.time() - started
    summary = summarize(results, wall, jobs, len(entries))
    write_reports(out, summary, results)
    return summary
