"""The real applications (issue 34), `make bench BENCH=apps`: per app of the corpus (apps/, installed by `make apps`)

- start: an instance from the seeded snapshot on 127.0.0.1:0 until its ready line (goal <= 10 s), median of
  CLAWREC_BENCH_APPS_STARTS (default 5);
- reset: POST /reset on a running instance after a write (goal <= 2 s median), CLAWREC_BENCH_APPS_RESETS (default 20);
- each task of specs/apps/NAME/ that has a scripted agent (its sidecar tests/apps/agent_scripts/<id>.json: the right
  run and each one-field-wrong run; CLAWREC_BENCH_APPS=name,name limits the apps):
  `clawrec run` headless, then the payload and the state judge: interception recall of the right agent, the
  final submission's side effects (the checks named "no …" must hold at the catch and at the end), right PASS
  and wrong FAIL naming the field (the payload judge's accuracy);
- the frozen web on each task: the right run is archived (`--archive`), every run is replayed offline from it
  (`--site-from`, the app receives nothing) and its payload verdict compared with the live one; what the archive
  could not answer (misses: method, URL) is listed; state verdicts are live-only (the app's DB never sees a replay);
- false positives: the `null` and `random` baseline agents run each task too; neither may be caught (a catch means
  the rule matches more than the final submission) nor leave a side effect;
- annotate picks the final submission: the committed reference (runs/reference/<id>/) re-annotated with
  `clawrec annotate RUN --from-spec SPEC` into a temp file; its intercept rules must match the same requests of the
  reference as the committed spec's (the final one, not the basket/draft POST).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "tests" / "apps" / "agent_scripts"


def agents(task_id: str) -> tuple[str, dict[str, tuple[list[str], str | None, bool]]] | None:
    """The task's scripted agent and its runs from its sidecar (tests/apps/agent_scripts/<id>.json, that folder's
    README): {run name: (extra args, the field a FAIL must name or None, whether the run is right)}."""
    path = SCRIPTS / f"{task_id}.json"
    if not path.is_file():
        return None
    doc = json.loads(path.read_text())
    runs = {name: (list(r.get("args", [])), r.get("field"), name == "right") for name, r in doc["runs"].items()}
    return doc.get("script", f"{task_id}.py"), runs


def _times(app: Any, starts: int, resets: int) -> dict[str, Any]:
    from clawrec.apps.instance import AppInstance

    start_s, reset_s = [], []
    for _ in range(starts):
        inst = AppInstance(app, slot_name="bench")
        inst.start()
        start_s.append(inst.start_s)
        if len(start_s) < starts:
            inst.stop()
    for _ in range(resets):
        urllib.request.urlopen(inst.url + app.start_path.lstrip("/"), timeout=30).read()  # a request first
        t = time.monotonic()
        inst.reset()
        reset_s.append(time.monotonic() - t)
    inst.stop()
    return {"start_median_s": round(statistics.median(start_s), 3), "start_max_s": round(max(start_s), 3),
            "reset_median_s": round(statistics.median(reset_s), 4), "reset_max_s": round(max(reset_s), 4),
            "start_goal_met": statistics.median(start_s) <= 10, "reset_goal_met": statistics.median(reset_s) <= 2}


def _run(spec: Path, script: str | None, extra: list[str], run_dir: Path, site: list[str] | None = None,
         agent: str = "command") -> dict[str, Any]:
    """One `clawrec run` of the task: its scripted agent (`script`), or a baseline agent by name (null, random)."""
    how = ["--agent-cmd", " ".join([sys.executable, str(SCRIPTS / script), *(f"'{a}'" for a in extra)])] if script \
        else []
    t = time.monotonic()
    subprocess.run([sys.executable, "-m", "clawrec.cli", "run", str(spec), "--agent", agent, *how,
                    "--headless", "--no-judge", "--no-video", "--run-dir", str(run_dir), *(site or [])], cwd=ROOT,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, check=False)
    wall = time.monotonic() - t
    if not (run_dir / "manifest.json").is_file():  # the run crashed before its run directory was written
        return {"status": "no manifest", "wall_s": round(wall, 1), "side_effects": 0, "site": {},
                "verdicts": {"payload": {"verdict": "inconclusive"}, "state": {"verdict": "inconclusive"}}}
    manifest = json.loads((run_dir / "manifest.json").read_text())
    verdicts = {}
    for judge in ("payload", "state"):
        subprocess.run([sys.executable, "-m", "clawrec.cli", "judge", str(run_dir), "--judge", judge], cwd=ROOT,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        path = run_dir / "verdict.json"
        verdicts[judge] = json.loads(path.read_text()) if path.is_file() else {"verdict": "inconclusive"}
        path.unlink(missing_ok=True)
    env = json.loads((run_dir / "environment.json").read_text()) if (run_dir / "environment.json").is_file() else {}
    side = [c for c in env.get("checks", []) + (env.get("at_catch") or {}).get("checks", [])
            if str(c.get("name", "")).startswith("no ")]
    return {"status": manifest.get("status"), "wall_s": round(wall, 1), "verdicts": verdicts,
            "side_effects": sum(not _holds(c) for c in side), "site": manifest.get("site") or {}}


def _misses(run_dir: Path) -> list[str]:
    """What the archive could not answer in a replay (replay.jsonl's misses), e.g. a POST whose answer was not
    recorded; each "METHOD URL" once."""
    path = run_dir / "replay.jsonl"
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()] if path.is_file() else []
    return sorted({f"{r['method']} {r['url']}" for r in lines if r.get("tier") == "miss"})


def _matched(spec_path: Path, reference: Path) -> list[str]:
    """Where the spec's intercept rules match in the reference run (taskspec.spec_runs, check-spec's matcher)."""
    from clawrec.taskfile import expand_sites
    from taskspec.load import load_spec
    from taskspec.spec_runs import check_run, for_run, load_runs

    spec = load_spec(str(spec_path))
    (run, role), = load_runs([(reference, "reference")])
    return sorted(h.where for h in check_run(for_run(spec, run, expand_sites), run, role).hits)


def annotate_picks(spec: Path, tmp: Path) -> dict[str, Any]:
    """Re-annotate the task's committed reference into `tmp` and compare which reference requests its rules match
    with the committed spec's: the same ones = annotate picked the same final submission."""
    reference = ROOT / "runs" / "reference" / spec.stem
    if not (reference / "manifest.json").is_file():
        return {"skipped": f"no reference at {reference.relative_to(ROOT)}"}
    out = tmp / f"{spec.stem}.yaml"
    proc = subprocess.run([sys.executable, "-m", "clawrec.cli", "annotate", str(reference), "--from-spec", str(spec),
                           "--out", str(out), "--force"], cwd=ROOT, capture_output=True, text=True, check=False)
    if not out.is_file():
        return {"same_request": False, "error": (proc.stderr or proc.stdout).strip().splitlines()[-1:]}
    try:
        committed, annotated = _matched(spec, reference), _matched(out, reference)
    except Exception as exc:  # a spec the matcher cannot read: the finding itself
        return {"same_request": False, "error": f"{type(exc).__name__}: {exc}"}
    return {"same_request": bool(committed) and committed == annotated, "committed": committed,
            "annotated": annotated, "annotate_exit": proc.returncode}


def _holds(check: dict[str, Any]) -> bool:
    """A check's reading equals what it expects ("no order": count 0; "no name changed": the row as it was)."""
    result, want = check.get("result") or {}, check.get("expect") or {}
    if "error" in check or not result:
        return False
    if "count" in want and result.get("count") != want["count"]:
        return False
    fields = want.get("fields") or {}
    return not fields or any(all(str(r.get(k)) == str(v) for k, v in fields.items()) for r in result.get("records", []))


def run(out: Path) -> dict[str, Any]:
    from clawrec.apps import corpus

    out.mkdir(parents=True, exist_ok=True)
    starts = int(os.environ.get("CLAWREC_BENCH_APPS_STARTS", 5))
    resets = int(os.environ.get("CLAWREC_BENCH_APPS_RESETS", 20))
    report: dict[str, Any] = {}
    totals = {"right_runs": 0, "caught": 0, "side_effects": 0, "judged": 0, "judged_right": 0, "replayed": 0,
              "replay_same_verdict": 0, "annotated": 0, "annotate_same_request": 0, "baseline_runs": 0,
              "false_positives": 0}
    only = [n for n in os.environ.get("CLAWREC_BENCH_APPS", "").split(",") if n]
    for name, app in corpus.apps().items():
        if only and name not in only:
            continue
        if not app.installed():
            report[name] = {"error": "not installed: run `make apps`"}
            continue
        entry: dict[str, Any] = {"times": _times(app, starts, resets), "tasks": {}}
        for spec in sorted((ROOT / "specs" / "apps" / name).glob("*.yaml")):
            found = agents(spec.stem)
            if found is None:
                entry["tasks"][spec.stem] = {"skipped": "no sidecar in tests/apps/agent_scripts/"}
                continue
            script, variants = found
            task: dict[str, Any] = {}
            picks = annotate_picks(spec, out)
            task["annotate"] = picks
            totals["annotated"] += "same_request" in picks
            totals["annotate_same_request"] += bool(picks.get("same_request"))
            for baseline in ("null", "random"):  # false positives: a baseline's run must catch nothing
                res = _run(spec, None, [], out / f"{spec.stem}-{baseline}-{time.monotonic_ns()}", agent=baseline)
                task[baseline] = {"status": res["status"], "side_effects": res["side_effects"]}
                totals["baseline_runs"] += 1
                totals["false_positives"] += res["status"] == "intercepted"
                totals["side_effects"] += res["side_effects"]
            archived: Path | None = None
            for variant, (extra, field, right) in sorted(variants.items(), key=lambda v: not v[1][2]):  # right first
                run_dir = out / f"{spec.stem}-{variant}-{time.monotonic_ns()}"
                res = _run(spec, script, extra, run_dir, ["--archive"] if right else None)
                archived = run_dir if right else archived
                payload = res["verdicts"]["payload"]
                failed = [c["condition"] for c in payload.get("conditions", []) if not c.get("met")]
                res["judge_right"] = payload.get("verdict") == "PASS" if right else \
                    payload.get("verdict") == "FAIL" and (field is None or any(field in c for c in failed))
                res["verdicts"] = {k: v.get("verdict") for k, v in res["verdicts"].items()}
                totals["right_runs"] += right
                totals["caught"] += right and res["status"] == "intercepted"
                totals["side_effects"] += res["side_effects"]
                totals["judged"] += 1
                totals["judged_right"] += bool(res["judge_right"])
                if archived is not None:
                    res["replay"] = _replay(spec, script, extra, archived, out, variant, res["verdicts"]["payload"],
                                            res["status"])
                    totals["replayed"] += 1
                    totals["replay_same_verdict"] += bool(res["replay"]["same_verdict"])
                task[variant] = res
            entry["tasks"][spec.stem] = task
        report[name] = entry
    report["overall"] = {**totals, "interception_recall": round(totals["caught"] / max(1, totals["right_runs"]), 3),
                         "payload_judge_accuracy": round(totals["judged_right"] / max(1, totals["judged"]), 3),
                         "replay_same_verdict_rate": round(totals["replay_same_verdict"] / max(1, totals["replayed"]), 3)}
    return report


def _replay(spec: Path, script: str, extra: list[str], archived: Path, out: Path, variant: str,
            live_verdict: str | None, live_status: str | None) -> dict[str, Any]:
    """The run replayed offline from the right run's archive: its payload verdict against the live one (the same only
    when the run also ended the same way: a replay whose agent failed is no FAIL like the live one), and what the
    archive could not answer (a state-dependent answer the archive lacks is a miss, listed)."""
    run_dir = out / f"{spec.stem}-{variant}-replay-{time.monotonic_ns()}"
    res = _run(spec, script, extra, run_dir, ["--site-from", str(archived)])
    site = res["site"]
    verdict = res["verdicts"]["payload"].get("verdict")
    return {"status": res["status"], "verdict": verdict, "live_verdict": live_verdict,
            "same_verdict": verdict == live_verdict and verdict in ("PASS", "FAIL") and res["status"] == live_status, "misses": _misses(run_dir),
            "live_requests": site.get("live_requests"), "hit_rate": site.get("hit_rate"), "wall_s": res["wall_s"]}
